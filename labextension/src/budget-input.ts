/**
 * The sidebar's budget: a slider on a logarithmic scale (100 to 2,000,000 tokens, steps that
 * grow with the budget: 100s near 2,000, 10,000s near 200,000) and a number field beside it to
 * type an exact budget. Neither goes below MIN_BUDGET: a packet smaller than that holds nothing
 * useful, and a stray click cannot set the budget to 0.
 */
import { el, fmt } from './dom';

export const MIN_BUDGET = 100;
export const MAX_SLIDER_BUDGET = 2_000_000;
/** What the typed field takes (the largest windows and then some). */
export const MAX_TYPED_BUDGET = 100_000_000;
const STEPS = 1000;

/** `value` rounded to two significant digits (2,345 → 2,300; 123,456 → 120,000). */
export function roundBudget(value: number): number {
  if (value <= MIN_BUDGET) {
    return MIN_BUDGET;
  }
  const unit = 10 ** Math.max(Math.floor(Math.log10(value)) - 1, 0);
  return Math.round(value / unit) * unit;
}

/** The slider position (0…STEPS) of a budget, and the budget at a position. */
export function sliderPosition(budget: number): number {
  const share = Math.log(Math.max(budget, MIN_BUDGET) / MIN_BUDGET) / Math.log(MAX_SLIDER_BUDGET / MIN_BUDGET);
  return Math.round(Math.min(Math.max(share, 0), 1) * STEPS);
}

export function budgetAt(position: number): number {
  return roundBudget(MIN_BUDGET * (MAX_SLIDER_BUDGET / MIN_BUDGET) ** (position / STEPS));
}

/** The typed field's arrow step for a budget: a tenth of its order of magnitude, at least 10. */
export function typedStep(budget: number): number {
  return Math.max(10 ** (Math.floor(Math.log10(Math.max(budget, 1))) - 1), 10);
}

export class BudgetInput {
  readonly slider = el('input', {
    type: 'range',
    min: 0,
    max: STEPS,
    step: 1,
    'aria-label': 'budget (logarithmic)',
    'data-ctx-budget-slider': ''
  }) as HTMLInputElement;
  readonly field = el('input', {
    type: 'number',
    min: MIN_BUDGET,
    max: MAX_TYPED_BUDGET,
    'aria-label': 'budget in tokens',
    class: 'ctx-budget-field',
    'data-ctx-budget-input': ''
  }) as HTMLInputElement;
  readonly note = el('span', { class: 'ctx-warn ctx-budget-note', 'data-ctx-budget-note': '' });
  readonly node = el(
    'div',
    { class: 'ctx-budget', 'data-ctx-budget-control': '' },
    el('span', {}, 'budget '),
    this.slider,
    this.field,
    this.note
  );
  private current: number;

  constructor(
    initial: number,
    private readonly onChange: (budget: number) => void
  ) {
    this.current = initial;
    this.show(initial);
    this.slider.addEventListener('input', () => {
      this.note.textContent = '';
      this.commit(budgetAt(Number(this.slider.value)), false);
    });
    this.field.addEventListener('change', () => this.typed());
    this.field.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        this.typed();
      }
    });
  }

  get value(): number {
    return this.current;
  }

  /** Show `budget` without telling anyone (settings, or the budget a chosen model sets). */
  show(budget: number): void {
    this.current = budget;
    this.slider.value = String(sliderPosition(budget));
    this.field.value = String(budget);
    this.field.step = String(typedStep(budget));
  }

  set disabled(value: boolean) {
    this.slider.disabled = value;
    this.field.disabled = value;
  }

  private typed(): void {
    if (this.field.value === String(this.current)) {
      return; // already in force (Enter, then the change event, both land here)
    }
    const raw = Number(this.field.value);
    if (!this.field.value.trim() || !Number.isFinite(raw)) {
      this.note.textContent = 'type a number of tokens';
      this.field.value = String(this.current);
      return;
    }
    let budget = Math.round(raw);
    this.note.textContent = '';
    if (budget < MIN_BUDGET) {
      this.note.textContent = `at least ${fmt(MIN_BUDGET)}`;
      budget = MIN_BUDGET;
    } else if (budget > MAX_TYPED_BUDGET) {
      this.note.textContent = `at most ${fmt(MAX_TYPED_BUDGET)}`;
      budget = MAX_TYPED_BUDGET;
    }
    this.commit(budget, true);
  }

  private commit(budget: number, typed: boolean): void {
    this.current = budget;
    this.field.value = String(budget);
    this.field.step = String(typedStep(budget));
    if (typed) {
      this.slider.value = String(sliderPosition(budget));
    }
    this.onChange(budget);
  }
}
