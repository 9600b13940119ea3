/**
 * What other context policies would have done to a session (application/vnd.ctx-lab.policies+json):
 * the input of every call per policy against the window, the cost split into cache reads, writes
 * and fresh input, the policies' table and what each lost — all open-loop, and said so.
 */
import { claimOf, details, el, fmt, sortableTable, svg } from './dom';
import { axes, callTicks } from './chart';
import { decision } from './front';
import { ACCENT, CACHE_COLORS, PoliciesPayload, SERIES_COLORS, SERIES_SVG_DASHES } from './generated';

type Policy = PoliciesPayload['policies'][number];

function text(x: number, y: number, value: string, anchor = 'start'): SVGElement {
  const node = svg('text', { x, y, 'font-size': 10, fill: 'currentColor', 'text-anchor': anchor });
  node.textContent = value;
  return node;
}

const colorOf = (i: number): string => SERIES_COLORS[i % SERIES_COLORS.length];
/** Past ten policies, the same colours with the next dash (ctx_lab.plotting.series_style). */
const dashOf = (i: number): string =>
  SERIES_SVG_DASHES[Math.floor(i / SERIES_COLORS.length) % SERIES_SVG_DASHES.length];

/** Input tokens over calls, one line per policy, with the window and each policy's threshold (dotted, in its colour); axes. */
export function inputChart(p: PoliciesPayload): SVGElement {
  const width = 640;
  const height = 220;
  const pad = { left: 52, right: 12, top: 12, bottom: 34 };
  const calls = Math.max(1, ...p.policies.map(q => q.calls.length));
  const peak = Math.max(1, ...p.policies.map(q => q.peak));
  const top = Math.max(peak, Math.min(p.window, 1.25 * peak));
  const x = (call: number) => pad.left + ((call - 1) / Math.max(calls - 1, 1)) * (width - pad.left - pad.right);
  const y = (tokens: number) => height - pad.bottom - (Math.min(tokens, top) / top) * (height - pad.top - pad.bottom);
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    class: 'ctx-policies-chart',
    'data-ctx-policies-chart': p.policies.length
  });
  if (p.window <= top) {
    root.appendChild(
      svg('line', {
        x1: pad.left,
        y1: y(p.window),
        x2: width - pad.right,
        y2: y(p.window),
        stroke: ACCENT.budget,
        'stroke-dasharray': '5 4',
        'data-ctx-line': 'window'
      })
    );
    root.appendChild(text(width - pad.right, y(p.window) - 3, `window ${fmt(p.window)}`, 'end'));
  }
  p.policies.forEach((q, i) => {
    if (q.threshold !== null && q.threshold !== undefined && q.threshold < top && q.threshold < p.window) {
      root.appendChild(
        svg('line', {
          x1: pad.left,
          y1: y(q.threshold),
          x2: width - pad.right,
          y2: y(q.threshold),
          stroke: colorOf(i),
          'stroke-dasharray': '2 3',
          'data-ctx-threshold': q.name
        })
      );
    }
  });
  const callNumbers = [...new Set(p.policies.flatMap(q => q.calls.map(c => c.call)))].sort((a, b) => a - b);
  axes(root, { width, height, pad, top, x, y }, callTicks(callNumbers), 'call', 'input tokens');
  p.policies.forEach((q, i) => {
    const points = q.calls.map(c => `${x(c.call).toFixed(1)},${y(c.input).toFixed(1)}`).join(' ');
    const line = svg('polyline', {
      points,
      fill: 'none',
      stroke: colorOf(i),
      'stroke-dasharray': dashOf(i),
      'stroke-width': 1.2,
      'data-ctx-policy-line': q.setting || q.name
    });
    const title = svg('title', {});
    title.textContent = `${q.setting || q.name}: peak ${fmt(q.peak)}, mean ${fmt(q.mean)}`;
    line.appendChild(title);
    root.appendChild(line);
  });
  return root;
}

function legend(policies: readonly Policy[]): HTMLElement {
  return el(
    'div',
    { class: 'ctx-legend', 'data-ctx-legend': '' },
    ...policies.map((q, i) => {
      const mark = svg('svg', { width: 22, height: 8, class: 'ctx-line-key' });
      mark.appendChild(
        svg('line', {
          x1: 0,
          y1: 4,
          x2: 22,
          y2: 4,
          stroke: colorOf(i),
          'stroke-dasharray': dashOf(i),
          'stroke-width': 2
        })
      );
      return el('span', { class: 'ctx-legend-item' }, mark as unknown as HTMLElement, q.setting || q.name);
    })
  );
}

/** One bar per policy: its cost split into cache reads, writes and fresh input. */
export function costBars(policies: readonly Policy[]): HTMLElement | null {
  const priced = policies.filter(q => q.cost_split);
  if (!priced.length) {
    return null;
  }
  const most = Math.max(...priced.map(q => q.cost ?? 0), 1e-9);
  const parts: [keyof NonNullable<Policy['cost_split']>, string][] = [
    ['read', CACHE_COLORS.read],
    ['write', CACHE_COLORS.write],
    ['fresh', CACHE_COLORS.fresh]
  ];
  return el(
    'div',
    { class: 'ctx-cost-bars', 'data-ctx-cost-bars': priced.length },
    el('div', { class: 'ctx-muted' }, 'input cost (USD): cache read · write · fresh'),
    ...priced.map(q => {
      const split = q.cost_split!;
      return el(
        'div',
        { class: 'ctx-cost-row', 'data-ctx-cost-row': q.setting || q.name },
        el('span', { class: 'ctx-cost-name' }, q.setting || q.name),
        el(
          'span',
          { class: 'ctx-cost-bar' },
          ...parts.map(([part, color]) =>
            el('span', {
              class: 'ctx-cost-part',
              style: `width:${((100 * split[part]) / most).toFixed(2)}%;background:${color}`,
              title: `${part} $${split[part].toFixed(4)}`
            })
          )
        ),
        el('span', { class: 'ctx-cost-value' }, `$${(q.cost ?? 0).toFixed(2)}`)
      );
    })
  );
}

function calls(list: readonly number[]): string {
  if (list.length <= 4) {
    return list.join(', ') || '-';
  }
  return `${list.length}: ${list.slice(0, 3).join(', ')} … ${list[list.length - 1]}`;
}

export function renderPolicies(p: PoliciesPayload): HTMLElement {
  const rows = p.policies.map(q => [
    q.setting || q.name,
    q.peak,
    q.mean,
    calls(q.compactions),
    q.over_window ?? 0,
    q.cost === null ? '?' : q.cost.toFixed(4),
    `${(q.cache_hit_rate * 100).toFixed(1)} %`,
    q.probes.kept,
    q.probes.summarized,
    q.probes.lost,
    (q.refetched ?? []).reduce((sum, r) => sum + r.tokens, 0),
    claimOf(q.claim, 'cost')
  ]);
  const losses = p.policies
    .filter(q => q.probes.lost)
    .map(q => [
      q.name,
      (q.probes.lost_constraints ?? []).join(' · ') || '–',
      (q.probes.lost_examples ?? []).slice(0, 8).join(' · ')
    ]);
  return el(
    'div',
    { 'data-ctx-policies': String(p.policies.length) },
    el(
      'div',
      { class: 'ctx-head' },
      `${p.source}: ${p.policies.length} policies on ${p.model} (window ${fmt(p.window)}), ${p.probes} probes`
    ),
    el('div', { class: 'ctx-muted', 'data-ctx-open-loop': '' }, `${p.open_loop} · counted with ${p.counted_with}`),
    inputChart(p),
    legend(p.policies),
    costBars(p.policies),
    decision(p.settings, p.recommended),
    sortableTable(
      [
        'policy',
        'peak',
        'mean',
        'compactions',
        'over window',
        'cost USD',
        'hit rate',
        'kept',
        'summarized',
        'lost',
        're-read tokens',
        'figures'
      ],
      rows,
      {
        'data-ctx-policies-table': ''
      }
    ),
    losses.length
      ? details(
          `what each policy lost (${p.open_loop})`,
          false,
          sortableTable(['policy', "user's constraints lost", 'some probes lost'], losses, { 'data-ctx-losses': '' })
        )
      : null
  );
}
