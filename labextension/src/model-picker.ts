/**
 * A searchable model picker that fits a narrow sidebar: a search field and, below it, a list of
 * the models that match, grouped by provider. Thousands of models stay usable: the list shows
 * the first matches and says how many more there are; typing narrows it. Keyboard: arrows move,
 * Enter chooses, Escape closes. The clear button goes back to the budget slider.
 */
import { el, fmt } from './dom';

/** One model on offer: its name, registry, effective input budget and the group it is listed in. */
export interface ModelChoice {
  model: string;
  registry: string;
  budget: number | null;
  group: string;
}

/** How many matches the list shows at once (the rest are counted). */
export const SHOWN_MATCHES = 120;

export class ModelPicker {
  readonly node = el('div', { class: 'ctx-model-picker', 'data-ctx-model-picker': '' });
  readonly search = el('input', {
    type: 'search',
    placeholder: 'model: none (type to search)',
    'aria-label': 'model',
    'aria-autocomplete': 'list',
    role: 'combobox',
    'aria-expanded': 'false',
    'data-ctx-model-search': ''
  }) as HTMLInputElement;
  private readonly clear = el(
    'button',
    { class: 'ctx-model-clear', type: 'button', title: 'no model: use the budget slider', 'data-ctx-model-clear': '' },
    '×'
  ) as HTMLButtonElement;
  private readonly list = el('div', { class: 'ctx-model-list', role: 'listbox', 'data-ctx-model-list': '' });
  private choices: ModelChoice[] = [];
  private shown: ModelChoice[] = [];
  private active = -1;
  /** The chosen model ('' for none). */
  value = '';
  registry = '';

  constructor(private readonly onChange: (model: string, registry: string) => void) {
    this.list.hidden = true;
    this.clear.hidden = true;
    this.node.append(el('div', { class: 'ctx-model-row' }, this.search, this.clear), this.list);
    this.search.addEventListener('focus', () => this.open());
    this.search.addEventListener('input', () => this.open());
    this.search.addEventListener('keydown', event => this.onKey(event));
    this.search.addEventListener('blur', () => {
      // a click on an option lands first (mousedown), then the list closes
      window.setTimeout(() => this.close(), 150);
    });
    this.clear.addEventListener('click', () => this.choose(null));
  }

  /** Add models to the ones on offer (later groups after earlier ones). */
  add(choices: readonly ModelChoice[]): void {
    this.choices = [...this.choices, ...choices];
    this.node.dataset.ctxModelCount = String(this.choices.length);
    if (!this.list.hidden) {
      this.render();
    }
  }

  /** Choose `model` as if picked from the list (false when it is not on offer). */
  pick(model: string): boolean {
    const found = this.choices.find(c => c.model === model);
    if (found) {
      this.choose(found);
    }
    return Boolean(found);
  }

  /** Copies left out of the last list: the same model at the same budget offered again by
   * a reseller (typing the reseller's name shows them). */
  copies = 0;

  private matches(): ModelChoice[] {
    const needle = this.search.value.trim().toLowerCase();
    const words = !needle || needle === this.value.toLowerCase() ? [] : needle.split(/\s+/);
    const seen = new Set<string>();
    this.copies = 0;
    return this.choices.filter(c => {
      if (!words.every(w => wordMatches(w, `${c.group} ${c.model}`))) {
        return false;
      }
      const key = `${c.model.split('/').pop()}|${c.budget}`;
      if (seen.has(key) && !words.some(w => c.group.toLowerCase().includes(w))) {
        this.copies += 1;
        return false;
      }
      seen.add(key);
      return true;
    });
  }

  private open(): void {
    this.list.hidden = false;
    this.search.setAttribute('aria-expanded', 'true');
    this.active = -1;
    this.render();
  }

  private close(): void {
    this.list.hidden = true;
    this.search.setAttribute('aria-expanded', 'false');
    this.search.value = this.value;
  }

  private render(): void {
    const all = this.matches();
    this.shown = all.slice(0, SHOWN_MATCHES);
    this.list.textContent = '';
    let group = '';
    this.shown.forEach((choice, index) => {
      if (choice.group !== group) {
        group = choice.group;
        this.list.appendChild(el('div', { class: 'ctx-model-group', 'data-ctx-model-group': group }, group));
      }
      const option = el(
        'div',
        {
          class: `ctx-model-option${index === this.active ? ' ctx-model-active' : ''}`,
          role: 'option',
          title: choice.model,
          'aria-selected': choice.model === this.value ? 'true' : 'false',
          'data-ctx-model-option': choice.model,
          'data-registry': choice.registry
        },
        // under its provider's heading, a model is named without the provider's prefix
        el(
          'span',
          { class: 'ctx-model-name' },
          choice.model.startsWith(`${choice.group}/`) ? choice.model.slice(choice.group.length + 1) : choice.model
        ),
        choice.budget !== null ? el('span', { class: 'ctx-muted ctx-model-budget' }, fmt(choice.budget)) : null
      );
      option.addEventListener('mousedown', event => {
        event.preventDefault(); // keep the focus in the search field until chosen
        this.choose(choice);
      });
      this.list.appendChild(option);
    });
    if (this.copies) {
      this.list.appendChild(
        el(
          'div',
          { class: 'ctx-muted ctx-model-more', 'data-ctx-model-copies': this.copies },
          `${fmt(this.copies)} copies from resellers left out — type a provider's name to see its own`
        )
      );
    }
    if (!all.length) {
      const close = closest(this.search.value, this.choices);
      this.list.appendChild(
        el(
          'div',
          { class: 'ctx-muted ctx-model-more', 'data-ctx-model-none': '' },
          close.length ? 'no model matches; did you mean:' : 'no model matches'
        )
      );
      close.forEach(choice => {
        const option = el(
          'div',
          { class: 'ctx-model-option', role: 'option', 'data-ctx-model-suggestion': choice.model, title: choice.model },
          el('span', { class: 'ctx-model-name' }, choice.model)
        );
        option.addEventListener('mousedown', event => {
          event.preventDefault();
          this.choose(choice);
        });
        this.list.appendChild(option);
      });
    } else if (all.length > this.shown.length) {
      this.list.appendChild(
        el(
          'div',
          { class: 'ctx-muted ctx-model-more', 'data-ctx-model-more': all.length - this.shown.length },
          `${fmt(all.length - this.shown.length)} more — type to narrow`
        )
      );
    }
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (this.list.hidden) {
        this.open();
      }
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this.active = Math.min(Math.max(this.active + step, 0), this.shown.length - 1);
      this.render();
      this.list.querySelector('.ctx-model-active')?.scrollIntoView({ block: 'nearest' });
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const choice = this.shown[this.active >= 0 ? this.active : 0];
      if (choice) {
        this.choose(choice); // shown holds only matches
      }
    } else if (event.key === 'Escape') {
      this.close();
    }
  }

  private choose(choice: ModelChoice | null): void {
    this.value = choice?.model ?? '';
    this.registry = choice?.registry ?? '';
    this.search.value = this.value;
    this.clear.hidden = !choice;
    this.node.dataset.ctxModelChosen = this.value;
    this.close();
    this.search.blur();
    this.onChange(this.value, this.registry);
  }
}

/** A name as words are matched against it: lowercase, its separators (. _ / - space) one. */
const normal = (text: string): string => text.toLowerCase().replace(/[._/\s-]+/g, '-');
/** … and with no separators at all ("gpt4o" finds gpt-4o). */
const compact = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** Whether a typed word is in a model's name, however either spells its separators: "4.5"
 * finds claude-sonnet-4-5, "gpt4o" finds gpt-4o. */
export function wordMatches(word: string, name: string): boolean {
  const bare = normal(word).replace(/^-+|-+$/g, '');
  return normal(name).includes(bare) || (compact(word) !== '' && compact(name).includes(compact(word)));
}

/** The edit distance of two short names (insert, delete, replace), capped at `cap`. */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) {
    return cap + 1;
  }
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length];
}

/** Up to three models whose names are a few edits from what was typed ("did you mean"), the
 * families' own before resellers' copies. */
export function closest(typed: string, choices: readonly ModelChoice[]): ModelChoice[] {
  const want = compact(typed);
  if (want.length < 3) {
    return [];
  }
  const cap = Math.max(2, Math.floor(want.length / 3));
  const scored: Array<[number, number, ModelChoice]> = [];
  const seen = new Set<string>();
  choices.forEach((choice, order) => {
    const bare = choice.model.split('/').pop() ?? choice.model;
    if (seen.has(bare)) {
      return;
    }
    const d = distance(want, compact(bare), cap);
    if (d <= cap) {
      seen.add(bare);
      scored.push([d, order, choice]);
    }
  });
  return scored
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .slice(0, 3)
    .map(([, , choice]) => choice);
}
