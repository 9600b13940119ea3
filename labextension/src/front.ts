/**
 * The decision of a policy sweep, in the lab: every setting on the cost–loss plane (median cost ×
 * the recording against median probes lost, each with its 90 % interval; hover for the setting),
 * the front joined, the recording a square, the recommended setting ringed — and the
 * recommendation with the configuration to paste and its source. Open-loop, and said so.
 */
import { el, fmt, svg } from './dom';
import { axes, legendBox, lineKey, areaKey } from './chart';
import { ACCENT, PoliciesPayload, SERIES_COLORS } from './generated';

export type FrontSetting = NonNullable<PoliciesPayload['settings']>[number];
export type Recommended = NonNullable<PoliciesPayload['recommended']>;

function text(x: number, y: number, value: string, anchor = 'start'): SVGElement {
  const node = svg('text', { x, y, 'font-size': 10, fill: 'currentColor', 'text-anchor': anchor });
  node.textContent = value;
  return node;
}

/** Round ticks over [0, top] for the cost ratio: 0.5 steps up to 3×, wider above. */
function ratioTicks(top: number): Array<[number, string]> {
  const step = top <= 3 ? 0.5 : top <= 8 ? 1 : Math.ceil(top / 8);
  const ticks: Array<[number, string]> = [];
  for (let v = 0; v <= top + 1e-9; v += step) {
    ticks.push([v, `${Number(v.toFixed(2))}×`]);
  }
  return ticks;
}

/** The settings on the cost–loss plane; hover a point for its setting and figures. */
export function frontChart(settings: readonly FrontSetting[], recommended: Recommended | null | undefined): SVGElement {
  const shown = settings.filter(s => s.cost_ratio);
  const width = 640;
  const height = 260;
  const pad = { left: 52, right: 12, top: 12, bottom: 34 };
  const right = Math.max(1.25, ...shown.map(s => s.cost_ratio!.high)) * 1.05;
  const top = Math.max(1, ...shown.map(s => s.probes_lost.high)) * 1.1;
  const x = (ratio: number) => pad.left + (ratio / right) * (width - pad.left - pad.right);
  const y = (lost: number) => height - pad.bottom - (Math.min(lost, top) / top) * (height - pad.top - pad.bottom);
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    class: 'ctx-front-chart',
    'data-ctx-front': shown.length
  });
  const policies = [...new Set(shown.map(s => s.policy))];
  const colorOf = (policy: string) => SERIES_COLORS[policies.indexOf(policy) % SERIES_COLORS.length];
  root.appendChild(
    svg('line', {
      x1: x(1),
      y1: pad.top,
      x2: x(1),
      y2: height - pad.bottom,
      stroke: ACCENT.outline,
      'stroke-dasharray': '2 3'
    })
  );
  root.appendChild(text(x(1) + 3, pad.top + 9, 'the recording'));
  axes(
    root,
    { width, height, pad, top, x, y },
    ratioTicks(right),
    'cost × the recording (median, 90 % interval)',
    'probes lost'
  );
  const front = shown.filter(s => s.on_front).sort((a, b) => a.cost_ratio!.median - b.cost_ratio!.median);
  if (front.length > 1) {
    root.appendChild(
      svg('polyline', {
        points: front.map(s => `${x(s.cost_ratio!.median).toFixed(1)},${y(s.probes_lost.median).toFixed(1)}`).join(' '),
        fill: 'none',
        stroke: ACCENT.used,
        'stroke-dasharray': '5 3',
        'data-ctx-front-line': front.length
      })
    );
  }
  for (const s of shown) {
    const cost = s.cost_ratio!;
    const cx = x(cost.median);
    const cy = y(s.probes_lost.median);
    const color = colorOf(s.policy);
    const group = svg('g', { 'data-ctx-setting': s.label, opacity: s.on_front ? 1 : 0.45 });
    group.appendChild(svg('line', { x1: x(cost.low), y1: cy, x2: x(cost.high), y2: cy, stroke: color }));
    group.appendChild(
      svg('line', { x1: cx, y1: y(s.probes_lost.low), x2: cx, y2: y(s.probes_lost.high), stroke: color })
    );
    group.appendChild(
      s.label === 'recorded'
        ? svg('rect', { x: cx - 4, y: cy - 4, width: 8, height: 8, fill: color })
        : svg('circle', { cx, cy, r: 4, fill: color })
    );
    const title = svg('title', {});
    title.textContent =
      `${s.label}: ×${cost.median.toFixed(2)} the recording (${cost.low.toFixed(2)}–${cost.high.toFixed(2)}), ` +
      `probes lost ${s.probes_lost.median}, peak ${fmt(s.peak)}, ${s.sessions.length} sessions` +
      (s.broke ? `, over the window on ${s.broke}` : '') +
      (s.on_front ? ' · on the front' : '');
    group.appendChild(title);
    root.appendChild(group);
  }
  if (recommended?.cost_ratio) {
    const cx = x(recommended.cost_ratio.median);
    const cy = y(recommended.probes_lost.median);
    root.appendChild(
      svg('circle', {
        cx,
        cy,
        r: 9,
        fill: 'none',
        stroke: ACCENT.edge,
        'stroke-width': 1.5,
        'data-ctx-recommended': recommended.label
      })
    );
    root.appendChild(text(cx + 11, cy - 8, `recommended: ${recommended.label}`));
  }
  return root;
}

/** The chart's legend: a colour per policy, the front's line, the recording's square. */
export function frontLegend(settings: readonly FrontSetting[]): HTMLElement {
  const policies = [...new Set(settings.filter(s => s.cost_ratio).map(s => s.policy))];
  return legendBox(
    'front',
    ...policies.map((policy, i) =>
      areaKey(SERIES_COLORS[i % SERIES_COLORS.length], policy, { 'data-ctx-legend-policy': policy })
    ),
    lineKey(ACCENT.used, '5 3', 'cost–loss front', 'front'),
    el(
      'span',
      { class: 'ctx-legend-item ctx-muted' },
      'square: the recording · ring: recommended · faded: off the front'
    )
  );
}

/** The recommendation: the setting, what it costs and loses, the configuration to paste. */
export function recommendation(rec: Recommended): HTMLElement {
  const cost = rec.cost_ratio;
  const lost =
    rec.probes_lost_recorded !== null && rec.label !== 'recorded'
      ? `probes lost ${rec.probes_lost.median} (the recording: ${rec.probes_lost_recorded})`
      : `probes lost ${rec.probes_lost.median}`;
  return el(
    'div',
    { class: 'ctx-recommendation', 'data-ctx-recommendation': rec.label },
    el(
      'div',
      { class: 'ctx-head' },
      `recommended: ${rec.label}` +
        (cost ? ` — ×${cost.median.toFixed(2)} the recording (${cost.low.toFixed(2)}–${cost.high.toFixed(2)})` : '') +
        `, ${lost}`
    ),
    rec.config
      ? el(
          'div',
          { 'data-ctx-config': rec.config.agent },
          el('div', {}, `${rec.config.agent}: ${rec.config.setting}`),
          el('pre', { class: 'ctx-config-value' }, rec.config.value),
          el('div', { class: 'ctx-muted' }, `source: ${rec.config.source}`)
        )
      : el('div', { 'data-ctx-config': '' }, `no setting to paste: ${rec.reason}`),
    el('div', { class: 'ctx-muted' }, `chosen as ${rec.rule}`),
    el('div', { class: 'ctx-muted', 'data-ctx-open-loop': '' }, rec.open_loop)
  );
}

/** The whole decision block, or null without settings to compare. */
export function decision(
  settings: readonly FrontSetting[] | undefined,
  rec: Recommended | null | undefined
): HTMLElement | null {
  if (!settings || settings.filter(s => s.cost_ratio).length < 2) {
    return null;
  }
  return el(
    'div',
    { class: 'ctx-decision', 'data-ctx-decision': settings.length },
    frontChart(settings, rec),
    frontLegend(settings),
    rec ? recommendation(rec) : null
  );
}
