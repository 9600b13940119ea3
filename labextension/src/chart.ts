/**
 * What every chart of the lab shares: its frame, a call axis and a token axis with round ticks
 * and their titles, and a legend that names every colour and line — so no chart leaves a reader
 * guessing what a colour or a scale means.
 */
import { el, svg } from './dom';

export interface Frame {
  width: number;
  height: number;
  pad: { left: number; right: number; top: number; bottom: number };
  /** The token value at the top of the plot area. */
  top: number;
  x: (value: number) => number;
  y: (tokens: number) => number;
}

/** A frame of `width` × `height` whose x runs over [first, last] and y over [0, top]. */
export function frame(width: number, height: number, first: number, last: number, top: number): Frame {
  const pad = { left: 52, right: 12, top: 10, bottom: 34 };
  const span = Math.max(last - first, 1);
  return {
    width,
    height,
    pad,
    top,
    x: (value: number) => pad.left + ((value - first) / span) * (width - pad.left - pad.right),
    y: (tokens: number) => height - pad.bottom - (Math.min(tokens, top) / top) * (height - pad.top - pad.bottom)
  };
}

/** Tokens as axis labels: 0, 850, 12k, 1.2M. */
export function tick(value: number): string {
  if (value >= 1e6) {
    return `${(value / 1e6).toFixed(value % 1e6 ? 1 : 0)}M`;
  }
  return value >= 1000 ? `${Math.round(value / 1000)}k` : String(Math.round(value));
}

/** A round step near range / 4 (1, 2, 2.5 or 5 × a power of ten). */
export function niceStep(range: number): number {
  const raw = Math.max(range, 1) / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].find(m => m * power >= raw) ?? 10;
  return step * power;
}

function label(root: Element, attrs: Record<string, string | number>, content: string): void {
  const node = svg('text', { 'font-size': 10, fill: 'currentColor', ...attrs });
  node.textContent = content;
  root.appendChild(node);
}

/** The x axis along the bottom (ticks at `xTicks`: [value, label]) and the token axis on the
 * left, each with its title. */
export function axes(
  root: SVGElement,
  f: Frame,
  xTicks: Array<[number, string]>,
  xTitle: string,
  yTitle: string
): void {
  const bottom = f.height - f.pad.bottom;
  const xAxis = svg('g', { 'data-ctx-axis': 'x' });
  xAxis.appendChild(
    svg('line', { x1: f.pad.left, y1: bottom, x2: f.width - f.pad.right, y2: bottom, stroke: 'currentColor' })
  );
  for (const [value, text] of xTicks) {
    xAxis.appendChild(
      svg('line', { x1: f.x(value), y1: bottom, x2: f.x(value), y2: bottom + 4, stroke: 'currentColor' })
    );
    label(xAxis, { x: f.x(value), y: bottom + 14, 'text-anchor': 'middle', 'data-ctx-tick': text }, text);
  }
  label(xAxis, { x: (f.pad.left + f.width - f.pad.right) / 2, y: f.height - 4, 'text-anchor': 'middle' }, xTitle);
  root.appendChild(xAxis);
  const yAxis = svg('g', { 'data-ctx-axis': 'y' });
  yAxis.appendChild(svg('line', { x1: f.pad.left, y1: f.pad.top, x2: f.pad.left, y2: bottom, stroke: 'currentColor' }));
  const step = niceStep(f.top);
  for (let v = 0; v <= f.top; v += step) {
    yAxis.appendChild(
      svg('line', { x1: f.pad.left - 4, y1: f.y(v), x2: f.pad.left, y2: f.y(v), stroke: 'currentColor' })
    );
    label(yAxis, { x: f.pad.left - 6, y: f.y(v) + 3, 'text-anchor': 'end', 'data-ctx-tick': v }, tick(v));
  }
  const middle = (f.pad.top + bottom) / 2;
  label(yAxis, { x: 10, y: middle, 'text-anchor': 'middle', transform: `rotate(-90 10 ${middle})` }, yTitle);
  root.appendChild(yAxis);
}

/** Ticks for calls `first`…`last`: at most eight, the last one always. */
export function callTicks(calls: readonly number[]): Array<[number, string]> {
  const every = Math.max(1, Math.ceil(calls.length / 8));
  return calls
    .map((call, i) => [i, call] as const)
    .filter(([i]) => i % every === 0 || i === calls.length - 1)
    .map(([, call]) => [call, String(call)]);
}

/** A legend entry: a swatch of an area's colour. */
export function areaKey(color: string, text: string, attrs: Record<string, string> = {}): HTMLElement {
  return el(
    'span',
    { class: 'ctx-legend-item', ...attrs },
    el('span', { class: 'ctx-swatch', style: `background:${color}` }),
    text
  );
}

/** A legend entry: a short stroke in a line's colour and dash. */
export function lineKey(stroke: string, dash: string, text: string, name: string): HTMLElement {
  const mark = svg('svg', { width: 22, height: 8, class: 'ctx-line-key' });
  mark.appendChild(svg('line', { x1: 0, y1: 4, x2: 22, y2: 4, stroke, 'stroke-dasharray': dash, 'stroke-width': 2 }));
  return el('span', { class: 'ctx-legend-item', 'data-ctx-legend-line': name }, mark as unknown as HTMLElement, text);
}

/** A legend box holding `entries`. */
export function legendBox(name: string, ...entries: HTMLElement[]): HTMLElement {
  return el('div', { class: 'ctx-legend', 'data-ctx-chart-legend': name }, ...entries);
}
