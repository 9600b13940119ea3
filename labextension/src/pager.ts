/**
 * The main-area pager: a file read page by page, in two modes.
 *
 * - browse: a person reading — no quota; each page shows what it would cost an agent; keyboard
 *   navigation (arrows, PageUp/PageDown, Home/End), "go to line" and a position bar.
 * - agent: the paging quota applies exactly as it does for an agent; pages already fetched are
 *   shown again from this view's own history without being charged again; reset and raise-limit
 *   controls; the meter shows whichever limit binds.
 *
 * PDFs and HTML are read through the reader (cursor chunks); notebooks are paged as their cells'
 * text (the server does that).
 */
import { Widget } from '@lumino/widgets';

import { ctxlab } from './api';
import { el, fmt, meter } from './dom';
import { PagePayload, ReadPayload, SETTINGS_DEFAULTS } from './generated';
import { lineView } from './renderers';

/** Files the pager is not offered for: they have no text to read. */
export const BINARY_EXTENSIONS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'ico',
  'bmp',
  'tif',
  'tiff',
  'zip',
  'gz',
  'tgz',
  'bz2',
  'xz',
  '7z',
  'tar',
  'whl',
  'jar',
  'so',
  'dll',
  'dylib',
  'exe',
  'bin',
  'o',
  'a',
  'pyc',
  'class',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'mp3',
  'mp4',
  'wav',
  'ogg',
  'avi',
  'mov',
  'sqlite',
  'db',
  'parquet'
]);
const READER_EXTENSIONS = new Set(['pdf', 'html', 'htm']);

export function extensionOf(path: string): string {
  const name = path.split('/').pop() ?? '';
  return name.includes('.') ? (name.split('.').pop() ?? '').toLowerCase() : '';
}

export interface PagerOptions {
  linesPerPage: number;
  maxPages: number;
  maxTokens: number;
}

type Budget = NonNullable<PagePayload['budget']>;

export class PagerView extends Widget {
  start = 1;
  mode: 'browse' | 'agent' = 'browse';
  readonly reader: boolean;
  private budgetId = PagerView.newId();
  private readonly history = new Map<string, PagePayload>(); // agent pages already fetched
  private readonly cursors: (string | undefined)[] = [undefined]; // reader: chunk starts
  private chunk = 0;
  private last: PagePayload | null = null;
  private lastChunk: ReadPayload | null = null;
  private latestBudget: Budget | null = null; // the quota as it stands (history pages are older)
  private queue: Promise<void> = Promise.resolve(); // moves run one after another, in order
  private readonly body = el('div', { class: 'ctx-pager-body', tabindex: 0, 'data-ctx-pager-body': '' });
  private readonly info = el('div', { class: 'ctx-head', 'data-ctx-pager-info': '' });
  private readonly position = el('div', { class: 'ctx-pager-position', 'data-ctx-pager-position': '' });
  private readonly quota = el('div', { 'data-ctx-pager-quota': '' });
  private readonly prev = el(
    'button',
    { class: 'jp-mod-styled', 'data-ctx-pager-prev': '' },
    '◀ previous'
  ) as HTMLButtonElement;
  private readonly next = el(
    'button',
    { class: 'jp-mod-styled', 'data-ctx-pager-next': '' },
    'next ▶'
  ) as HTMLButtonElement;
  private readonly modeSelect = el(
    'select',
    { 'data-ctx-pager-mode': '', title: 'browse: read freely · agent: the paging quota applies' },
    el('option', { value: 'browse' }, 'browse'),
    el('option', { value: 'agent' }, 'agent (quota)')
  ) as HTMLSelectElement;
  private readonly goto = el('input', {
    type: 'number',
    min: 1,
    placeholder: 'line',
    'data-ctx-pager-goto': '',
    style: 'width:6em'
  }) as HTMLInputElement;
  private readonly reset = el(
    'button',
    { class: 'jp-mod-styled', 'data-ctx-pager-reset': '' },
    'reset quota'
  ) as HTMLButtonElement;
  private readonly raise = el(
    'button',
    { class: 'jp-mod-styled', 'data-ctx-pager-raise': '' },
    'raise limits'
  ) as HTMLButtonElement;

  static newId(): string {
    return `pager-${Date.now()}-${Math.random().toString(16).slice(2)}`;
  }

  constructor(
    readonly path: string,
    readonly options: PagerOptions = {
      linesPerPage: SETTINGS_DEFAULTS.linesPerPage,
      maxPages: SETTINGS_DEFAULTS.pagerMaxPages,
      maxTokens: SETTINGS_DEFAULTS.pagerMaxTokens
    }
  ) {
    super();
    this.addClass('ctx-lab');
    this.addClass('ctx-pager');
    this.node.dataset.ctxPager = path;
    this.reader = READER_EXTENSIONS.has(extensionOf(path));
    this.prev.addEventListener('click', () => this.enqueue(() => this.previous()));
    this.next.addEventListener('click', () => this.enqueue(() => this.following()));
    this.modeSelect.addEventListener('change', () => {
      this.mode = this.modeSelect.value as 'browse' | 'agent';
      this.updateControls();
      void this.showLines(this.start);
    });
    this.goto.addEventListener('keydown', event => {
      if (event.key === 'Enter' && Number(this.goto.value) >= 1) {
        void this.showLines(Math.floor(Number(this.goto.value)));
      }
    });
    this.reset.addEventListener('click', () => {
      this.budgetId = PagerView.newId();
      this.history.clear();
      this.latestBudget = null;
      void this.showLines(1);
    });
    this.raise.addEventListener('click', () => void this.raiseLimits());
    this.node.addEventListener('keydown', event => this.onKey(event));
    const controls = el(
      'div',
      { class: 'ctx-pager-nav' },
      this.prev,
      this.next,
      ' ',
      el('label', {}, 'mode ', this.modeSelect),
      this.reader ? '' : el('label', {}, ' go to ', this.goto),
      ' ',
      this.reset,
      ' ',
      this.raise
    );
    this.node.append(controls, this.info, this.position, this.quota, this.body);
    this.updateControls();
    void this.showLines(1);
  }

  private updateControls(): void {
    const agent = this.mode === 'agent';
    this.reset.hidden = !agent;
    this.raise.hidden = !agent;
    this.node.dataset.ctxPagerModeActive = this.mode;
  }

  private onKey(event: KeyboardEvent): void {
    if (event.target === this.goto) {
      return;
    }
    const keys: Record<string, () => Promise<void>> = {
      ArrowDown: () => this.following(),
      PageDown: () => this.following(),
      ArrowRight: () => this.following(),
      ArrowUp: () => this.previous(),
      PageUp: () => this.previous(),
      ArrowLeft: () => this.previous(),
      Home: () => (this.reader ? this.showChunk(0) : this.showLines(1)),
      End: () => this.end()
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      this.enqueue(action);
    }
  }

  /** Run a move after the ones already asked for (a key held down moves page by page). */
  private enqueue(move: () => Promise<void>): void {
    this.queue = this.queue.then(move, move);
  }

  private async end(): Promise<void> {
    if (this.reader) {
      return;
    }
    const total = this.last?.total_lines ?? 1;
    await this.showLines(Math.max(total - this.options.linesPerPage + 1, 1));
  }

  async following(): Promise<void> {
    if (this.reader) {
      if (this.lastChunk?.next_cursor) {
        await this.showChunk(this.chunk + 1);
      }
      return;
    }
    const p = this.last;
    if (p && p.end_line < p.total_lines) {
      await this.showLines(p.truncated && p.next_start_line ? p.next_start_line : p.end_line + 1);
    }
  }

  async previous(): Promise<void> {
    if (this.reader) {
      await this.showChunk(Math.max(this.chunk - 1, 0));
      return;
    }
    await this.showLines(Math.max(this.start - this.options.linesPerPage, 1));
  }

  private async raiseLimits(): Promise<void> {
    const budget = this.last?.budget;
    if (!budget) {
      return;
    }
    await ctxlab.budget({
      budget_id: this.budgetId,
      max_pages: budget.max_pages * 2,
      max_tokens: budget.max_tokens * 2
    });
    this.history.clear();
    await this.showLines(this.start);
  }

  /** Lines `start`…: from this view's history when already fetched in agent mode. */
  async showLines(start: number): Promise<void> {
    if (this.reader) {
      await this.showChunk(this.chunk);
      return;
    }
    const lines = `${start}-${start + this.options.linesPerPage - 1}`;
    const key = `${this.budgetId}:${lines}`;
    try {
      const kept = this.mode === 'agent' ? this.history.get(key) : undefined;
      const again = kept !== undefined;
      let page: PagePayload;
      if (kept) {
        page = kept;
      } else {
        page = await ctxlab.page({
          artifact_id: this.path,
          lines,
          ...(this.mode === 'agent'
            ? { budget_id: this.budgetId, max_pages: this.options.maxPages, max_tokens: this.options.maxTokens }
            : { browse: true })
        });
        if (this.mode === 'agent') {
          this.history.set(key, page);
          this.latestBudget = page.budget;
        }
      }
      this.last = page;
      this.start = start;
      this.renderPage(page, again);
    } catch (error) {
      this.info.textContent = String(error).replace(/^Error: /, '');
      this.info.setAttribute('data-ctx-pager-error', '');
      this.next.disabled = true;
    }
  }

  private renderPage(page: PagePayload, again: boolean): void {
    this.info.removeAttribute('data-ctx-pager-error');
    this.info.textContent = `${page.artifact_id}: lines ${page.start_line}–${page.end_line} of ${fmt(page.total_lines)} · this page ${fmt(page.tokens)} tokens (${page.counter})`;
    if (again) {
      this.info.append(
        el('span', { class: 'ctx-muted', 'data-ctx-pager-again': '' }, ' · shown again from this view, not charged')
      );
    }
    const total = Math.max(page.total_lines, 1);
    const bar = el('div', { class: 'ctx-pager-position-fill' });
    bar.style.marginLeft = `${(((page.start_line - 1) / total) * 100).toFixed(2)}%`;
    bar.style.width = `${Math.max(((page.end_line - page.start_line + 1) / total) * 100, 0.5).toFixed(2)}%`;
    this.position.textContent = '';
    this.position.append(bar);
    this.position.title = `lines ${page.start_line}–${page.end_line} of ${page.total_lines}`;
    this.quota.textContent = '';
    const b = this.latestBudget ?? page.budget;
    if (this.mode === 'agent' && b) {
      const pages = b.pages_used / Math.max(b.max_pages, 1);
      const tokens = b.tokens_used / Math.max(b.max_tokens, 1);
      const binding = pages >= tokens ? 'pages' : 'tokens';
      const label =
        binding === 'pages'
          ? `${b.pages_used} of ${b.max_pages} pages (the binding limit) · ${fmt(b.tokens_used)} of ${fmt(b.max_tokens)} tokens`
          : `${fmt(b.tokens_used)} of ${fmt(b.max_tokens)} tokens (the binding limit) · ${b.pages_used} of ${b.max_pages} pages`;
      const used = binding === 'pages' ? b.pages_used : b.tokens_used;
      const limit = binding === 'pages' ? b.max_pages : b.max_tokens;
      this.quota.append(meter(used, limit, label, b.severity ?? 'ok'));
      this.quota.dataset.ctxBinding = binding;
    }
    this.body.textContent = '';
    this.body.append(lineView(page.content, page.start_line));
    this.prev.disabled = page.start_line <= 1;
    this.next.disabled = page.end_line >= page.total_lines;
  }

  /** Reader chunks (PDF, HTML): cursor by cursor, earlier ones kept for "previous". */
  async showChunk(index: number): Promise<void> {
    try {
      const chunk = await ctxlab.read({ uri: this.path, cursor: this.cursors[index] });
      if (chunk.next_cursor && this.cursors.length === index + 1) {
        this.cursors.push(chunk.next_cursor);
      }
      this.chunk = index;
      this.lastChunk = chunk;
      this.info.removeAttribute('data-ctx-pager-error');
      const pages = chunk.page_info ? ` · ${JSON.stringify(chunk.page_info)}` : '';
      this.info.textContent = `${this.path}: chunk ${index + 1}${chunk.truncated ? '' : ' (the last)'}${pages}`;
      this.position.textContent = '';
      this.quota.textContent = '';
      this.body.textContent = '';
      this.body.append(el('pre', { 'data-ctx-pager-chunk': index + 1 }, chunk.content));
      this.prev.disabled = index === 0;
      this.next.disabled = !chunk.truncated;
    } catch (error) {
      this.info.textContent = String(error).replace(/^Error: /, '');
      this.info.setAttribute('data-ctx-pager-error', '');
    }
  }
}
