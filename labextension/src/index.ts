/**
 * ctx-lab for JupyterLab: the Context sidebar, the pager view and their commands.
 * (The MIME renderers are the mime extension in ./mime.ts.)
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, MainAreaWidget } from '@jupyterlab/apputils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';
import { LabIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import { api } from './api';
import { el, fmt, meter, select, warningList } from './dom';
import { magicLine } from './magic';
import { CountersPayload, PacketPayload } from './generated';
import { allocationBar, lineView } from './renderers';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<g class="jp-icon3" fill="#616161"><rect x="3" y="4" width="18" height="3" rx="1"/>' +
  '<rect x="3" y="10" width="12" height="3" rx="1"/><rect x="3" y="16" width="7" height="3" rx="1"/>' +
  '</g></svg>';
export const contextIcon = new LabIcon({ name: 'ctx-lab:context', svgstr: ICON_SVG });

const COMMANDS = {
  open: 'ctx-lab:open-context-panel',
  insert: 'ctx-lab:insert-packet-cell',
  page: 'ctx-lab:page-file',
  refresh: 'ctx-lab:refresh-context-panel'
};

/** The left-panel Context sidebar. */
export class ContextPanel extends Widget {
  budget = 2000;
  counter = 'bytes/4';
  model = '';
  focus = '';
  relevance = 'keywords';
  profile = 'design';
  project: string | null = null;
  private signature = '';
  private timer: number | undefined;
  private poll: number | undefined;
  private packet: Record<string, any> | null = null;
  private readonly status = el('div', { class: 'ctx-panel-status', 'data-ctx-panel-status': '' });
  private readonly warnings = el('div', { 'data-ctx-panel-warnings': '' });
  readonly focusInput = el('input', {
    type: 'search',
    placeholder: 'focus: words to rank entries by (default: the tasks)',
    'data-ctx-focus-input': ''
  }) as HTMLInputElement;
  private readonly relevanceSelect = select(
    { 'data-ctx-relevance': '', title: 'keywords: matched keywords / 3 · bm25: rarer shared words weigh more' },
    ['keywords', 'bm25']
  );
  private readonly allocation = el('div', { 'data-ctx-panel-allocation': '' });
  private readonly entries = el('div', { class: 'ctx-panel-entries', 'data-ctx-panel-entries': '' });
  private readonly detail = el('div', { class: 'ctx-panel-detail', 'data-ctx-panel-detail': '' });
  private readonly budgetLabel = el('span', { 'data-ctx-panel-budget': '' }, '2000');
  readonly slider = el('input', {
    type: 'range',
    min: 0,
    max: 16000,
    step: 100,
    value: 2000,
    'data-ctx-budget-slider': ''
  }) as HTMLInputElement;
  private readonly profileSelect = select(
    { 'data-ctx-profile-select': '', title: 'design: the design doc packet · ctx-0.8: what ctx agent 0.8.1 sends, bugs included' },
    ['design', 'ctx-0.8']
  );
  private readonly counterSelect = el('select', { 'data-ctx-counter': '' }) as HTMLSelectElement;
  private readonly modelSelect = el('select', { 'data-ctx-model-select': '' }) as HTMLSelectElement;

  constructor(
    private readonly browser: IDefaultFileBrowser,
    private readonly insertCell: (code: string) => boolean
  ) {
    super();
    this.id = 'ctx-lab-context-panel';
    this.addClass('ctx-lab');
    this.addClass('ctx-panel');
    this.title.icon = contextIcon;
    this.title.caption = 'ctx-lab Context';
    this.counterSelect.appendChild(el('option', { value: this.counter }, this.counter));
    this.modelSelect.appendChild(el('option', { value: '' }, '(budget slider)'));
    const insert = el('button', { class: 'jp-mod-styled ctx-insert', 'data-ctx-insert': '' }, 'Insert %ctx packet cell');
    insert.addEventListener('click', () => this.insertCell(this.cellCode()));
    this.slider.addEventListener('input', () => {
      this.budget = Number(this.slider.value);
      this.budgetLabel.textContent = String(this.budget);
      this.schedule();
    });
    this.counterSelect.addEventListener('change', () => {
      this.counter = this.counterSelect.value;
      this.schedule();
    });
    this.focusInput.addEventListener('input', () => {
      this.focus = this.focusInput.value.trim();
      this.schedule();
    });
    this.profileSelect.addEventListener('change', () => {
      this.profile = this.profileSelect.value;
      const ctx = this.profile !== 'design';
      // ctx 0.8.1 counts bytes / 4 and has no focus or relevance rule
      this.focusInput.disabled = ctx;
      this.relevanceSelect.disabled = ctx;
      this.counterSelect.disabled = ctx;
      this.schedule();
    });
    this.relevanceSelect.addEventListener('change', () => {
      this.relevance = this.relevanceSelect.value;
      this.schedule();
    });
    this.modelSelect.addEventListener('change', () => {
      this.model = this.modelSelect.value;
      this.slider.disabled = Boolean(this.model);
      this.schedule();
    });
    this.node.append(
      el('h3', {}, 'Context'),
      this.status,
      el('label', {}, 'budget ', this.slider, ' ', this.budgetLabel),
      el('div', {}, el('label', {}, 'counter ', this.counterSelect), ' ', el('label', {}, 'model ', this.modelSelect)),
      el('div', { class: 'ctx-panel-focus' }, this.focusInput, ' ', el('label', {}, 'relevance ', this.relevanceSelect)),
      el('div', {}, el('label', {}, 'profile ', this.profileSelect)),
      this.warnings,
      this.allocation,
      insert,
      this.entries,
      this.detail
    );
    browser.model.pathChanged.connect(() => void this.locate());
    void this.loadModels();
    void this.loadCounters();
    void this.locate();
    this.poll = window.setInterval(() => void this.checkForChanges(), 4000);
  }

  dispose(): void {
    window.clearInterval(this.poll);
    window.clearTimeout(this.timer);
    super.dispose();
  }

  cellCode(): string {
    const size: [string, string] = this.model ? ['--model', this.model] : ['--budget', String(this.budget)];
    const dir = this.project && this.project !== '.' ? [this.project] : [];
    if (this.profile !== 'design') {
      return `%load_ext ctx_lab\n${magicLine('packet', [size, ['--profile', this.profile]], dir)}`;
    }
    const flags: [string, string][] = [size, ['--counter', this.counter]];
    if (this.focus) {
      flags.push(['--focus', this.focus]);
    }
    if (this.relevance !== 'keywords') {
      flags.push(['--relevance', this.relevance]);
    }
    return `%load_ext ctx_lab\n${magicLine('packet', flags, dir)}`;
  }

  private schedule(): void {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.load(), 300);
  }

  /** Every counter the server has — built in or installed as a plugin — usable ones first. */
  private async loadCounters(): Promise<void> {
    try {
      const listing = await api<CountersPayload>('counters', {});
      const usable = listing.counters.filter(c => c.available);
      const unusable = listing.counters.filter(c => !c.available);
      this.counterSelect.textContent = '';
      for (const c of [...usable, ...unusable]) {
        const label = `${c.name}${c.exact ? '' : ' (estimate)'}`;
        this.counterSelect.appendChild(
          el('option', { value: c.name, disabled: !c.available, title: c.reason || label, 'data-ctx-counter-option': c.name }, label)
        );
      }
      this.counterSelect.value = this.counter;
    } catch {
      /* the selector keeps the default counter */
    }
  }

  private async loadModels(): Promise<void> {
    try {
      const listing = await api('models', {});
      for (const m of listing.models ?? []) {
        this.modelSelect.appendChild(el('option', { value: m.model }, `${m.model} (${fmt(m.effective_input_budget)})`));
      }
    } catch {
      /* the selector stays with the slider only */
    }
  }

  async locate(): Promise<void> {
    try {
      const found = await api('context', { dir: this.browser.model.path });
      this.project = found.found ? found.dir : null;
      this.signature = found.signature ?? '';
    } catch (error) {
      this.project = null;
      this.status.textContent = `ctx-lab server extension unavailable: ${error}`;
      return;
    }
    await this.load();
  }

  private async checkForChanges(): Promise<void> {
    if (!this.isVisible) {
      return;
    }
    try {
      const found = await api('context', { dir: this.browser.model.path });
      const project = found.found ? found.dir : null;
      if (project !== this.project || (found.signature ?? '') !== this.signature) {
        this.project = project;
        this.signature = found.signature ?? '';
        await this.load();
      }
    } catch {
      /* keep what is shown */
    }
  }

  async load(): Promise<void> {
    this.detail.textContent = '';
    if (this.project === null) {
      this.packet = null;
      this.status.textContent = 'No .context/ directory here or above.';
      this.allocation.textContent = '';
      this.entries.textContent = '';
      this.warnings.textContent = '';
      return;
    }
    this.status.textContent = `Loading ${this.project}…`;
    try {
      const packet = await api('packet', {
        dir: this.project,
        budget: this.model ? undefined : this.budget,
        model: this.model || undefined,
        ...(this.profile === 'design'
          ? {
              counter: this.counter,
              focus: this.focus || undefined,
              relevance: this.relevance === 'keywords' ? undefined : this.relevance
            }
          : { profile: this.profile })
      });
      this.packet = packet;
      this.render(packet);
    } catch (error) {
      this.status.textContent = `Could not assemble a packet: ${error}`;
    }
  }

  private render(p: PacketPayload): void {
    this.status.textContent = '';
    this.status.append(
      el('b', {}, this.project ?? ''),
      ': ',
      el('span', { 'data-ctx-panel-used': '' }, fmt(p.tokens_used)),
      ' / ',
      el('span', { 'data-ctx-panel-total': '' }, fmt(p.budget)),
      ' tokens (',
      el('span', { 'data-ctx-panel-counter': '' }, p.counter),
      ')',
      p.overshoot ? el('span', { class: 'ctx-bad', 'data-ctx-panel-overshoot': p.overshoot }, ` over budget by ${fmt(p.overshoot)}`) : ''
    );
    this.warnings.textContent = '';
    const warned = warningList(p.warnings);
    if (warned) {
      this.warnings.appendChild(warned);
    }
    this.allocation.textContent = '';
    this.allocation.append(allocationBar(p.allocation ?? [], p.budget, p.tokens_used), meter(p.tokens_used, p.budget, `${fmt(p.tokens_used)} used`, p.severity));
    this.entries.textContent = '';
    for (const row of p.ledger ?? []) {
      if (row.section === 'constitution') {
        continue;
      }
      const item = el(
        'div',
        { class: `ctx-entry ctx-action-${row.action}`, 'data-ctx-entry': row.title, 'data-ctx-action': row.action },
        el('span', { class: 'ctx-entry-action' }, row.action),
        ' ',
        el('span', { class: 'ctx-entry-title' }, row.title),
        row.score !== null && row.score !== undefined ? el('span', { class: 'ctx-muted' }, ` ${Number(row.score).toFixed(2)}`) : null,
        (row.warnings ?? []).length ? el('span', { class: 'ctx-warn', title: (row.warnings ?? []).join('\n'), 'data-ctx-entry-warning': '' }, ' ⚠') : null
      );
      item.addEventListener('click', () => this.showDetail(row));
      this.entries.appendChild(item);
    }
  }

  private showDetail(row: Record<string, any>): void {
    const full =
      row.section === 'steering'
        ? (this.packet?.steering ?? []).find((s: Record<string, any>) => s.source === row.source)
        : [...(this.packet?.decisions ?? []), ...(this.packet?.learnings ?? [])].find(
            (e: Record<string, any>) => e.title === row.title
          );
    this.detail.textContent = '';
    this.detail.append(
      el('h4', {}, row.title),
      el('div', {}, `${row.section} · ${row.action} · ${row.tokens} tokens`),
      el('div', { class: 'ctx-muted' }, row.reason),
      row.source ? el('div', { class: 'ctx-muted', 'data-ctx-entry-source': '' }, row.source) : '',
      ...(row.warnings ?? []).map((w: string) => el('div', { class: 'ctx-warn' }, w)),
      row.score !== null && row.score !== undefined
        ? el(
            'div',
            { 'data-ctx-score-breakdown': '' },
            `score ${Number(row.score).toFixed(2)} = recency ${row.recency} (age ${row.age_days ?? '?'} d) + relevance ${Number(row.relevance).toFixed(2)}`,
            row.keywords && row.keywords.length ? ` · keywords: ${row.keywords.join(', ')}` : ''
          )
        : '',
      full ? el('pre', {}, full.text) : ''
    );
  }
}

/** A main-area pager: budgeted pages of one file, next / previous. */
export class PagerView extends Widget {
  start = 1;
  private readonly budgetId = `pager-${Date.now()}-${Math.random().toString(16).slice(2)}`;
  private readonly body = el('div', { class: 'ctx-pager-body' });
  private readonly info = el('div', { class: 'ctx-head', 'data-ctx-pager-info': '' });
  private readonly prev = el('button', { class: 'jp-mod-styled', 'data-ctx-pager-prev': '' }, '◀ previous') as HTMLButtonElement;
  private readonly next = el('button', { class: 'jp-mod-styled', 'data-ctx-pager-next': '' }, 'next ▶') as HTMLButtonElement;
  private last: Record<string, any> | null = null;

  constructor(
    readonly path: string,
    readonly linesPerPage = 40
  ) {
    super();
    this.addClass('ctx-lab');
    this.addClass('ctx-pager');
    this.node.dataset.ctxPager = path;
    this.prev.addEventListener('click', () => void this.showPage(Math.max(this.start - this.linesPerPage, 1)));
    this.next.addEventListener('click', () => {
      const p = this.last;
      const following = p ? (p.truncated ? p.next_start_line : p.end_line + 1) : 1;
      void this.showPage(following);
    });
    this.node.append(el('div', { class: 'ctx-pager-nav' }, this.prev, this.next), this.info, this.body);
    void this.showPage(1);
  }

  async showPage(start: number): Promise<void> {
    try {
      const page = await api('page', {
        id: this.path,
        lines: `${start}-${start + this.linesPerPage - 1}`,
        budget_id: this.budgetId
      });
      this.last = page;
      this.start = start;
      this.info.textContent = `${page.artifact_id}: lines ${page.start_line}–${page.end_line} of ${page.total_lines} (${page.tokens} tokens)`;
      this.body.textContent = '';
      this.body.append(
        meter(page.budget.tokens_used, page.budget.max_tokens, `${page.budget.pages_remaining} pages, ${fmt(page.budget.tokens_remaining)} tokens left`, page.budget.severity),
        lineView(page.content, page.start_line)
      );
      this.prev.disabled = start <= 1;
      this.next.disabled = page.end_line >= page.total_lines;
    } catch (error) {
      this.info.textContent = String(error).replace(/^Error: /, '');
      this.info.setAttribute('data-ctx-pager-error', '');
      this.next.disabled = true;
    }
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'ctx-lab:plugin',
  description: 'ctx-lab: a Context sidebar, a pager view and commands.',
  autoStart: true,
  requires: [IDefaultFileBrowser],
  optional: [ICommandPalette, INotebookTracker, ILayoutRestorer, ILabShell],
  activate: (
    app: JupyterFrontEnd,
    browser: IDefaultFileBrowser,
    palette: ICommandPalette | null,
    notebooks: INotebookTracker | null,
    restorer: ILayoutRestorer | null
  ) => {
    const insertCell = (code: string): boolean => {
      const panel = notebooks?.currentWidget;
      if (!panel) {
        return false;
      }
      NotebookActions.insertBelow(panel.content);
      const cell = panel.content.activeCell;
      if (cell) {
        cell.model.sharedModel.setSource(code);
      }
      return true;
    };
    const panel = new ContextPanel(browser, insertCell);
    app.shell.add(panel, 'left', { rank: 600 });
    restorer?.add(panel, panel.id);

    app.commands.addCommand(COMMANDS.open, {
      label: 'ctx-lab: Open Context Sidebar',
      execute: () => app.shell.activateById(panel.id)
    });
    app.commands.addCommand(COMMANDS.refresh, {
      label: 'ctx-lab: Refresh Context Sidebar',
      execute: () => panel.locate()
    });
    app.commands.addCommand(COMMANDS.insert, {
      label: 'ctx-lab: Insert %ctx packet Cell',
      isEnabled: () => Boolean(notebooks?.currentWidget),
      execute: () => insertCell(panel.cellCode())
    });
    app.commands.addCommand(COMMANDS.page, {
      label: 'Page with ctx-lab',
      icon: contextIcon,
      execute: args => {
        const path =
          (args.path as string | undefined) ?? browser.selectedItems().next()?.value?.path ?? '';
        if (!path) {
          return;
        }
        const content = new PagerView(path);
        const widget = new MainAreaWidget({ content });
        widget.id = `ctx-lab-pager-${Date.now()}`;
        widget.title.label = `Pager: ${path.split('/').pop()}`;
        widget.title.icon = contextIcon;
        app.shell.add(widget, 'main');
      }
    });
    app.contextMenu.addItem({
      command: COMMANDS.page,
      selector: '.jp-DirListing-item[data-isdir="false"]',
      rank: 20
    });
    for (const command of Object.values(COMMANDS)) {
      palette?.addItem({ command, category: 'ctx-lab' });
    }
  }
};

export default plugin;
