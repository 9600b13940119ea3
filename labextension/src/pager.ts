/**
 * The main-area pager: a file read page by page, in two modes.
 *
 * - browse: a person reading — no quota; each page shows what it would cost an agent; keyboard
 *   navigation (arrows, PageUp/PageDown, Home/End), "go to line" and a position bar.
 * - agent: the paging quota applies exactly as it does for an agent; pages already fetched are
 *   shown again from this view's own history without being charged again; reset and raise-limit
 *   controls; the meter shows whichever limit binds.
 *
 * PDFs and HTML are read through the reader, chunk by chunk: "pages 1–3 of 17" for a PDF, "chunk 2
 * of 6" otherwise; End and "go to page" (a PDF's page, another document's chunk) jump there. The
 * reader has no paging quota: agent mode shows the chunk size an agent gets instead. Notebooks are
 * paged as their cells' text (the server does that). Every go-to clamps to the document and says so.
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

/** A pager button (JupyterLab's style), found by its data attribute. */
function button(marker: string, label: string): HTMLButtonElement {
  return el('button', { class: 'jp-mod-styled', [marker]: '' }, label) as HTMLButtonElement;
}

/** Where a reader chunk starts: a page (a PDF's page, another document's chunk) or a cursor. */
type ReadStep = { page: number; cursor?: undefined } | { cursor: string; page?: undefined };

export class PagerView extends Widget {
  start = 1;
  mode: 'browse' | 'agent' = 'browse';
  readonly reader: boolean;
  private budgetId = PagerView.newId();
  private readonly history = new Map<string, PagePayload>(); // agent pages already fetched
  private trail: ReadStep[] = [{ page: 1 }]; // reader: the chunks read in order since the last jump
  private last: PagePayload | null = null;
  private lastChunk: ReadPayload | null = null;
  private latestBudget: Budget | null = null; // the quota as it stands (history pages are older)
  private queue: Promise<void> = Promise.resolve(); // moves run one after another, in order
  private readonly body = el('div', { class: 'ctx-pager-body', tabindex: 0, 'data-ctx-pager-body': '' });
  private readonly info = el('div', { class: 'ctx-head', 'data-ctx-pager-info': '' });
  private readonly notice = el('div', { class: 'ctx-warn', 'data-ctx-pager-notice': '' });
  private readonly position = el('div', { class: 'ctx-pager-position', 'data-ctx-pager-position': '' });
  private readonly quota = el('div', { 'data-ctx-pager-quota': '' });
  private readonly prev = button('data-ctx-pager-prev', '◀ previous');
  private readonly next = button('data-ctx-pager-next', 'next ▶');
  private readonly modeSelect = el(
    'select',
    { 'data-ctx-pager-mode': '', title: 'browse: read freely · agent: the paging quota applies' },
    el('option', { value: 'browse' }, 'browse'),
    el('option', { value: 'agent' }, 'agent (quota)')
  ) as HTMLSelectElement;
  private readonly goto = el('input', {
    type: 'number',
    'data-ctx-pager-goto': '',
    style: 'width:6em'
  }) as HTMLInputElement;
  private readonly gotoLabel = el('span', {});
  private readonly reset = button('data-ctx-pager-reset', 'reset quota');
  private readonly raise = button('data-ctx-pager-raise', 'raise limits');

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
      if (event.key === 'Enter') {
        const target = Number(this.goto.value);
        this.enqueue(() => this.goTo(target));
      }
    });
    this.reset.addEventListener('click', () => {
      this.budgetId = PagerView.newId();
      this.history.clear();
      this.latestBudget = null;
      this.enqueue(() => this.showLines(1));
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
      el('label', {}, this.gotoLabel, this.goto),
      ' ',
      this.reset,
      ' ',
      this.raise
    );
    this.gotoLabel.textContent = this.reader ? ' go to page ' : ' go to line ';
    this.goto.placeholder = this.reader ? 'page' : 'line';
    this.notice.hidden = true;
    this.node.append(controls, this.info, this.notice, this.position, this.quota, this.body);
    this.updateControls();
    this.enqueue(() => this.showLines(1));
  }

  private updateControls(): void {
    const quota = this.mode === 'agent' && !this.reader; // the reader has no paging quota
    this.reset.hidden = !quota;
    this.raise.hidden = !quota;
    this.node.dataset.ctxPagerModeActive = this.mode;
    if (this.reader && this.lastChunk) {
      this.renderQuotaForReader(this.lastChunk);
    }
  }

  /** A message above the page saying what was shown instead of what was asked (or nothing). */
  private say(message: string): void {
    this.notice.textContent = message;
    this.notice.hidden = !message;
  }

  /** Go to a line (files) or page (reader documents), clamped to the document with a message. */
  async goTo(target: number): Promise<void> {
    if (!Number.isFinite(target) || this.goto.value.trim() === '') {
      this.say(`type a ${this.reader ? 'page' : 'line'} number`);
      return;
    }
    const asked = Math.floor(target);
    if (this.reader) {
      if (asked < 1) {
        await this.readAt({ page: 1 }, true);
        this.say(`page ${asked}: pages start at 1 — showing the first`);
        return;
      }
      await this.readAt({ page: asked }, true); // past the end: the server clamps and says so
      return;
    }
    const total = this.last?.total_lines ?? null;
    if (asked < 1) {
      await this.showLines(1);
      this.say(`line ${asked}: lines start at 1 — showing the first page`);
    } else if (total !== null && asked > total) {
      await this.showLines(this.lastPageStart(total));
      this.say(`line ${fmt(asked)} is past the end (${fmt(total)} lines) — showing the last page`);
    } else {
      await this.showLines(asked);
    }
  }

  private lastPageStart(total: number): number {
    return Math.max(total - this.options.linesPerPage + 1, 1);
  }

  /** Pages of a PDF, chunks of another document (null until the first chunk is read). */
  private readerTotal(): number | null {
    const chunk = this.lastChunk;
    if (!chunk) {
      return null;
    }
    return chunk.page_info ? chunk.page_info.total_pages : Number(chunk.position?.chunks ?? 0) || null;
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
      Home: async () => {
        await (this.reader ? this.readAt({ page: 1 }, true) : this.showLines(1));
      },
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

  /** The last page of a file, the last page (PDF) or chunk of a reader document. */
  async end(): Promise<void> {
    if (this.reader) {
      await this.readAt({ page: this.readerTotal() ?? Number.MAX_SAFE_INTEGER }, true);
      return;
    }
    await this.showLines(this.lastPageStart(this.last?.total_lines ?? 1));
  }

  async following(): Promise<void> {
    if (this.reader) {
      const cursor = this.lastChunk?.next_cursor;
      if (cursor) {
        await this.readAt({ cursor }, false);
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
      if (this.trail.length > 1) {
        this.trail.pop();
        await this.readAt(this.trail[this.trail.length - 1], null);
        return;
      }
      const first = this.firstPageShown();
      if (first > 1) {
        await this.readAt({ page: first - 1 }, true);
      }
      return;
    }
    await this.showLines(Math.max(this.start - this.options.linesPerPage, 1));
  }

  /** The first page (PDF) or chunk number of the chunk on screen. */
  private firstPageShown(): number {
    const chunk = this.lastChunk;
    if (!chunk) {
      return 1;
    }
    return chunk.page_info ? chunk.page_info.page_start : Number(chunk.position?.chunk ?? 1);
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
      await this.readAt(this.trail[this.trail.length - 1], null);
      return;
    }
    this.say('');
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
      if (page.start_line > page.total_lines && page.total_lines > 0) {
        // the file is shorter than the line asked for (it may have changed): its last page
        await this.showLines(this.lastPageStart(page.total_lines));
        this.say(`line ${fmt(start)} is past the end (${fmt(page.total_lines)} lines) — showing the last page`);
        return;
      }
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

  /**
   * A reader chunk (PDF, HTML): from a page (a jump, which starts a new trail when `jump` is
   * true), from the cursor of the chunk before (appended to the trail), or again (`jump` null).
   */
  async readAt(step: ReadStep, jump: boolean | null): Promise<void> {
    try {
      const chunk = await ctxlab.read(
        step.cursor !== undefined ? { uri: this.path, cursor: step.cursor } : { uri: this.path, page: step.page }
      );
      if (jump === true) {
        this.trail = [step];
      } else if (jump === false) {
        this.trail.push(step);
      }
      this.lastChunk = chunk;
      this.say(chunk.note ?? (chunk.cursor_reset ? `restarted from the beginning: ${chunk.cursor_reason}` : ''));
      this.renderChunk(chunk);
    } catch (error) {
      this.info.textContent = String(error).replace(/^Error: /, '');
      this.info.setAttribute('data-ctx-pager-error', '');
    }
  }

  private renderChunk(chunk: ReadPayload): void {
    this.info.removeAttribute('data-ctx-pager-error');
    const position = chunk.position ?? {};
    const start = Number(position.start ?? 0);
    const end = Number(position.end ?? 0);
    const total = Number(position.total ?? 0);
    let where: string;
    let share: [number, number];
    if (chunk.page_info) {
      const p = chunk.page_info;
      where =
        p.page_start === p.page_end
          ? `page ${fmt(p.page_start)} of ${fmt(p.total_pages)}`
          : `pages ${fmt(p.page_start)}–${fmt(p.page_end)} of ${fmt(p.total_pages)}`;
      const pages = Math.max(p.total_pages, 1);
      share = [(p.page_start - 1) / pages, p.page_end / pages];
    } else {
      where = `chunk ${fmt(Number(position.chunk ?? 1))} of ${fmt(Number(position.chunks ?? 1))} · characters ${fmt(start + 1)}–${fmt(end)} of ${fmt(total)}`;
      share = total ? [start / total, end / total] : [0, 1];
    }
    this.info.textContent = `${this.path}: ${where}${chunk.truncated ? '' : ' · the end'}`;
    this.info.dataset.ctxPagerWhere = where;
    const bar = el('div', { class: 'ctx-pager-position-fill' });
    bar.style.marginLeft = `${(share[0] * 100).toFixed(2)}%`;
    bar.style.width = `${Math.max((share[1] - share[0]) * 100, 0.5).toFixed(2)}%`;
    this.position.textContent = '';
    this.position.append(bar);
    this.position.title = where;
    this.renderQuotaForReader(chunk);
    this.body.textContent = '';
    this.body.append(el('pre', { 'data-ctx-pager-chunk': this.firstPageShown() }, chunk.content));
    this.prev.disabled = this.trail.length <= 1 && this.firstPageShown() <= 1;
    this.next.disabled = !chunk.truncated;
  }

  /** Agent mode for a reader document: the limit that applies is the chunk size, not a quota. */
  private renderQuotaForReader(chunk: ReadPayload): void {
    this.quota.textContent = '';
    delete this.quota.dataset.ctxBinding;
    if (this.mode !== 'agent') {
      return;
    }
    const size = chunk.max_chars ?? 0;
    const used = chunk.content.length;
    this.quota.dataset.ctxBinding = 'chunk';
    this.quota.append(
      meter(used, size, `this chunk ${fmt(used)} of at most ${fmt(size)} characters`, 'ok'),
      el(
        'div',
        { class: 'ctx-muted', 'data-ctx-pager-reader-limit': '' },
        `read has no paging quota: an agent gets chunks of at most ${fmt(size)} characters and continues with the cursor`
      )
    );
  }
}
