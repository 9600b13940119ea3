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
      const name = `${c.group} ${c.model}`.toLowerCase();
      if (!words.every(w => name.includes(w))) {
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
      this.list.appendChild(el('div', { class: 'ctx-muted ctx-model-more' }, 'no model matches'));
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
