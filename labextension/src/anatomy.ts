/**
 * What fills a request (application/vnd.ctx-lab.anatomy+json) and a session
 * (…anatomy_session+json): an icicle of categories and their parts, the category table, and
 * the categories over a session's calls with the window, budget and autocompact lines.
 */
import { areaKey, axes, callTicks, frame, legendBox, lineKey } from './chart';
import { el, fmt, sortableTable, svg } from './dom';
import { ACCENT, AnatomyPayload, AnatomySessionPayload, CATEGORY_COLORS, WINDOW_COLORS } from './generated';

function color(category: string): string {
  return CATEGORY_COLORS[category] ?? WINDOW_COLORS[category] ?? ACCENT.other;
}

const HIDDEN_LABEL = 'not in the file (inferred from reported input)';

/** A swatch of a category's (or a window block's) colour and its label. */
function swatch(key: string, text: string, attrs: Record<string, string> = {}): HTMLElement {
  return areaKey(color(key), text, attrs);
}

/** The model's whole window as one labelled bar: the request's blocks, what the file lacks
 * (inferred from the reported input), free space, and what the window keeps — the blocks the
 * engine computed (ctx_lab.anatomy._window), so every surface draws the same numbers. */
export function windowView(p: AnatomyPayload): HTMLElement {
  const bar = el('div', { class: 'ctx-window-bar' });
  const legend = el('div', { class: 'ctx-legend', 'data-ctx-window-legend-box': '' });
  for (const block of p.window_view) {
    const pct = block.share > 0 && block.share < 0.0005 ? '<0.1%' : `${(block.share * 100).toFixed(1)}%`;
    const text = `${block.label} ${fmt(block.tokens)} (${pct})`;
    const cell = el('div', {
      class: `ctx-window-block ctx-window-${block.basis}`,
      title: block.note ? `${text} — ${block.note}` : text,
      style: `flex:0 0 ${(Math.min(block.share, 1) * 100).toFixed(3)}%;background:${color(block.key)}`,
      'data-ctx-window-block': block.key,
      'data-ctx-tokens': block.tokens
    });
    if (block.share >= 0.08) {
      cell.textContent = block.label;
    }
    bar.append(cell);
    legend.append(
      swatch(block.key, `${text}${block.basis === 'inferred' ? ' · inferred' : ''}`, {
        'data-ctx-window-legend': block.key
      })
    );
  }
  return el(
    'div',
    { class: 'ctx-window-view', 'data-ctx-window-view': p.used },
    el('div', { class: 'ctx-muted' }, `${p.model} · window ${fmt(p.window)} tokens · ${fmt(p.used)} used`),
    bar,
    legend
  );
}

type AdviceRow = AnatomyPayload['advice'][number];

/** The avoidable costs, the largest saving first: what addresses each, and the saving where
 * ctx_lab can estimate it (the engine's advice, ctx_lab.anatomy._advice). */
export function adviceList(advice: readonly AdviceRow[] | undefined): HTMLElement | null {
  if (!advice || !advice.length) {
    return null;
  }
  const items = advice.map((a, i) => {
    const saving = a.saving_usd
      ? ` — saves ~$${a.saving_usd.toFixed(4)}${a.saving_tokens ? ` (${fmt(a.saving_tokens)} tokens)` : ''}`
      : a.saving_tokens
        ? ` — saves ~${fmt(a.saving_tokens)} tokens`
        : '';
    return el(
      'li',
      { 'data-ctx-advice-item': i, title: a.basis },
      `${a.cost}: ${a.action}: `,
      el('code', {}, a.command),
      saving
    );
  });
  return el(
    'div',
    { class: 'ctx-advice', 'data-ctx-advice': advice.length },
    el('b', {}, 'Largest avoidable cost first'),
    el('ul', {}, ...items)
  );
}

/** The headline: tokens against the budget, the counter, and the reported input beside it. */
export function anatomyHead(p: AnatomyPayload): HTMLElement {
  const exact = p.exact ? 'exact' : 'estimate';
  const head = el(
    'div',
    { class: 'ctx-head', 'data-ctx-anatomy-head': '' },
    `${p.model}${p.call !== null && p.call !== undefined ? ` · call ${p.call}` : ''}: `,
    el('b', { 'data-ctx-anatomy-total': p.total }, fmt(p.total)),
    ` tokens (${p.counter}, ${exact})`,
    p.hidden ? ` + ${fmt(p.hidden)} not in the file (inferred from the reported input)` : '',
    ` of ${fmt(p.limit)} (${p.autocompact_at ? 'where the agent compacts' : 'input budget'}) · window ${fmt(p.window)} · free ${fmt(p.free)}`
  );
  if (p.reported_input !== null && p.reported_input !== undefined) {
    head.append(
      el(
        'div',
        { class: 'ctx-muted', 'data-ctx-anatomy-reported': p.reported_input },
        `reported input ${fmt(p.reported_input)} · difference ${(p.difference ?? 0) >= 0 ? '+' : ''}${fmt(p.difference)}` +
          (p.cache_read !== null && p.cache_read !== undefined
            ? ` · cache read ${fmt(p.cache_read)}, written ${fmt(p.cache_write ?? 0)}`
            : '')
      )
    );
  }
  return head;
}

/** Two rows of the request's own composition: the categories, then the named parts within
 * each (the fill against the budget is the meter's). */
export function icicle(p: AnatomyPayload): HTMLElement {
  const scale = Math.max(p.total, 1);
  const top = el('div', { class: 'ctx-icicle-row', 'data-ctx-icicle': 'categories' });
  const parts = el('div', { class: 'ctx-icicle-row', 'data-ctx-icicle': 'parts' });
  for (const [category, tokens] of Object.entries(p.categories)) {
    const width = `${((tokens / scale) * 100).toFixed(2)}%`;
    top.append(
      el(
        'div',
        {
          class: 'ctx-icicle-cell',
          title: `${category}: ${fmt(tokens)}`,
          style: `width:${width};background:${color(category)}`,
          'data-ctx-category': category
        },
        tokens / scale >= 0.08 ? category : ''
      )
    );
    const named = new Map<string, number>();
    for (const item of p.items.filter(i => i.category === category)) {
      named.set(item.name, (named.get(item.name) ?? 0) + item.tokens);
    }
    for (const [name, size] of [...named.entries()].sort((a, b) => b[1] - a[1])) {
      parts.append(
        el(
          'div',
          {
            class: 'ctx-icicle-cell ctx-icicle-part',
            title: `${category}${name ? ` ${name}` : ''}: ${fmt(size)}`,
            style: `width:${((size / scale) * 100).toFixed(2)}%;background:${color(category)}`
          },
          name && size / scale >= 0.08 ? name : ''
        )
      );
    }
  }
  const legend = el(
    'div',
    { class: 'ctx-legend', 'data-ctx-icicle-legend': '' },
    ...Object.entries(p.categories).map(([category, tokens]) => swatch(category, `${category} ${fmt(tokens)}`))
  );
  return el(
    'div',
    { class: 'ctx-icicle' },
    el('div', { class: 'ctx-muted' }, 'the request by category (top) and by name within each (bottom)'),
    top,
    parts,
    legend
  );
}

export function renderAnatomy(p: AnatomyPayload): HTMLElement {
  const total = Math.max(p.total, 1);
  const rows = Object.entries(p.categories).map(([category, tokens]) => [
    category,
    tokens,
    `${((tokens / total) * 100).toFixed(1)}%`
  ]);
  const named = (label: string, counts: Record<string, number> | undefined): HTMLElement | null => {
    const entries = Object.entries(counts ?? {});
    return entries.length
      ? el('div', { class: 'ctx-muted' }, `${label}: ${entries.map(([n, t]) => `${n || '?'} ${fmt(t)}`).join(', ')}`)
      : null;
  };
  return el(
    'div',
    { 'data-ctx-anatomy': '' },
    anatomyHead(p),
    windowView(p),
    adviceList(p.advice),
    icicle(p),
    sortableTable(['category', 'tokens', 'share'], rows, { 'data-ctx-anatomy-table': '' }),
    named('tool definitions', p.tools),
    named('MCP tools', p.mcp_tools),
    named('tool calls', p.tool_calls),
    named('tool results', p.tool_results),
    named('memory', p.memory)
  );
}

type SessionRow = AnatomySessionPayload['rows'][number];
const CATEGORY_ORDER = Object.keys(CATEGORY_COLORS);

/** The categories over the calls, stacked (what a file lacks on top, inferred from the
 * reported input), with a call axis, a token axis, the budget and autocompact lines and a
 * legend naming every colour and line. */
export function timeline(rows: readonly SessionRow[]): HTMLElement {
  // the scale holds every call and the lines that bound it: the budget and the autocompact point
  const tops = rows.map(r => Math.max(r.used ?? r.total, r.budget, r.autocompact_at ?? 0, r.replayed ?? 0));
  const f = frame(640, 220, 0, Math.max(rows.length - 1, 1), Math.max(1, ...tops) * 1.05);
  const { x, y } = f;
  const root = svg('svg', {
    viewBox: `0 0 ${f.width} ${f.height}`,
    class: 'ctx-timeline',
    'data-ctx-timeline': rows.length
  });
  const legend = legendBox('timeline');
  const base = rows.map(() => 0);
  const value = (r: SessionRow, category: string): number => Number((r as Record<string, unknown>)[category] ?? 0);
  for (const category of [...CATEGORY_ORDER, 'hidden']) {
    if (!rows.some(r => value(r, category))) {
      continue;
    }
    const upper = rows.map((r, i) => base[i] + value(r, category));
    const points = [
      ...upper.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`),
      ...base.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).reverse()
    ].join(' ');
    root.appendChild(svg('polygon', { points, fill: color(category), opacity: 0.85, 'data-ctx-area': category }));
    upper.forEach((v, i) => (base[i] = v));
    legend.append(
      swatch(category, category === 'hidden' ? HIDDEN_LABEL : category, { 'data-ctx-legend-area': category })
    );
  }
  const line = (values: number[], stroke: string, dash: string, name: string, text: string): void => {
    const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    root.appendChild(
      svg('polyline', {
        points,
        fill: 'none',
        stroke,
        'stroke-dasharray': dash,
        'stroke-width': 1.5,
        'data-ctx-line': name
      })
    );
    legend.append(lineKey(stroke, dash, text, name));
  };
  if (rows.length) {
    const last = rows[rows.length - 1];
    line(
      rows.map(r => r.budget),
      ACCENT.budget,
      '5 4',
      'budget',
      `input budget ${fmt(last.budget)}`
    );
    if (rows.some(r => r.autocompact_at)) {
      line(
        rows.map(r => r.autocompact_at ?? 0),
        ACCENT.outline,
        '2 3',
        'autocompact',
        `autocompact at ${fmt(last.autocompact_at)}`
      );
    }
  }
  if (rows.some(r => r.replayed !== null && r.replayed !== undefined)) {
    line(
      rows.map(r => r.replayed ?? 0),
      ACCENT.used,
      '1 2',
      'replayed',
      'ctx_lab would send'
    );
  }
  let breaks = 0;
  rows.forEach((r, i) => {
    if (r.cache_break) {
      breaks += 1;
      const mark = svg('line', {
        x1: x(i),
        y1: f.pad.top,
        x2: x(i),
        y2: f.height - f.pad.bottom,
        stroke: ACCENT.outline,
        'data-ctx-cache-break': r.call
      });
      const title = svg('title', {});
      title.textContent = `call ${r.call}: ${r.cache_break}`;
      mark.appendChild(title);
      root.appendChild(mark);
    }
  });
  if (breaks) {
    legend.append(lineKey(ACCENT.outline, '', `cache break (${breaks})`, 'cache-break'));
  }
  // ticks name the calls; the plot is indexed by position (a capture's calls may skip numbers)
  const ticks = callTicks(rows.map((_, i) => i)).map(([i]): [number, string] => [i, String(rows[i].call)]);
  axes(root, f, ticks, 'call', 'input tokens');
  return el('div', { class: 'ctx-chart', 'data-ctx-chart': 'timeline' }, root, legend);
}

export function renderAnatomySession(p: AnatomySessionPayload): HTMLElement {
  const rows = p.rows.map(r => [
    r.call,
    r.total,
    r.new,
    r.carried,
    r.dropped,
    r.stable_prefix,
    r.reported_input ?? null,
    r.difference ?? null,
    r.cache_read ?? null,
    r.cache_break
  ]);
  return el(
    'div',
    { 'data-ctx-anatomy-session': '' },
    el(
      'div',
      { class: 'ctx-head' },
      `${p.source}: ${p.rows.length} calls · ${p.breaks.length} cache break${p.breaks.length === 1 ? '' : 's'}`
    ),
    timeline(p.rows),
    adviceList(p.advice),
    sortableTable(
      [
        'call',
        'total',
        'new',
        'carried',
        'dropped',
        'stable prefix',
        'reported',
        'difference',
        'cache read',
        'cache break'
      ],
      rows,
      { 'data-ctx-anatomy-rows': '' }
    ),
    el(
      'div',
      { class: 'ctx-muted' },
      `largest: ${p.largest
        .slice(0, 5)
        .map(x => `call ${x.call} ${x.category}${x.name ? ` ${x.name}` : ''} ${fmt(x.tokens)}`)
        .join(', ')}`
    )
  );
}
