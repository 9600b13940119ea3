/**
 * Exercise mode — predict before you reveal: each entry's fate (its action and the reason for
 * it) is hidden until it is clicked, and the packet's sections (which say what made it in)
 * until "reveal all". A renderer turns it on for itself with its own button; the sidebar's
 * checkbox turns it on everywhere (the body's class), for a class working through the examples.
 */
import { el } from './dom';

/** On the body: every renderer that offers exercise mode starts with fates hidden. */
export const EVERYWHERE = 'ctx-exercise-mode';
/** On a renderer's or the sidebar's root: its fates are hidden until revealed. */
export const HIDING = 'ctx-exercise';

/** Where the lab remembers that exercise mode is on everywhere (a class keeps it on across
 * reloads until the sidebar turns it off). */
const STORED = 'ctx-lab:exercise-mode';

/** Whether exercise mode is on everywhere (the sidebar's toggle). */
export function exerciseEverywhere(): boolean {
  try {
    return document.body.classList.contains(EVERYWHERE) || window.localStorage.getItem(STORED) === 'on';
  } catch {
    return document.body.classList.contains(EVERYWHERE);
  }
}

/** Turn exercise mode on or off everywhere (and remember it). */
export function setExerciseEverywhere(on: boolean): void {
  document.body.classList.toggle(EVERYWHERE, on);
  try {
    if (on) {
      window.localStorage.setItem(STORED, 'on');
    } else {
      window.localStorage.removeItem(STORED);
    }
  } catch {
    /* storage refused (private mode): this page only */
  }
}

/** Reveal the fates of the row or entry that holds `target` (a click on a hidden fate). */
function revealAt(target: EventTarget | null): boolean {
  const fate = (target as Element | null)?.closest?.('[data-ctx-fate]');
  if (!fate || fate.classList.contains('ctx-revealed')) {
    return false;
  }
  const row = fate.closest('tr, [data-ctx-entry]') ?? fate;
  row.querySelectorAll('[data-ctx-fate]').forEach(f => f.classList.add('ctx-revealed'));
  return true;
}

/** Make `root` an exercise: hidden fates reveal on click; returns the controls to show. */
export function exercise(
  root: HTMLElement,
  on = exerciseEverywhere(),
  onToggle: (hiding: boolean) => void = () => undefined
): HTMLElement {
  root.setAttribute('data-ctx-exercise-root', '');
  root.classList.toggle(HIDING, on);
  root.addEventListener(
    'click',
    event => {
      if (root.classList.contains(HIDING) && revealAt(event.target)) {
        event.stopPropagation();
        event.preventDefault();
      }
    },
    true
  );
  const toggle = el(
    'button',
    { type: 'button', class: 'ctx-link', 'data-ctx-exercise-toggle': '' },
    on ? 'exercise: on' : 'exercise: hide fates'
  );
  const revealAll = el('button', { type: 'button', class: 'ctx-link', 'data-ctx-reveal-all': '' }, 'reveal all');
  revealAll.hidden = !on;
  toggle.addEventListener('click', () => {
    const hiding = !root.classList.contains(HIDING);
    root.classList.toggle(HIDING, hiding);
    root.querySelectorAll('.ctx-revealed').forEach(f => f.classList.remove('ctx-revealed'));
    toggle.textContent = hiding ? 'exercise: on' : 'exercise: hide fates';
    revealAll.hidden = !hiding;
    onToggle(hiding);
  });
  revealAll.addEventListener('click', () => {
    root.classList.remove(HIDING);
    toggle.textContent = 'exercise: hide fates';
    revealAll.hidden = true;
  });
  return el(
    'span',
    { class: 'ctx-exercise-controls', title: 'predict each entry’s fate, then click it to reveal' },
    toggle,
    ' ',
    revealAll
  );
}
