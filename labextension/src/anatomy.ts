/**
 * What fills a request (application/vnd.ctx-lab.anatomy+json) and a session
 * (…anatomy_session+json): an icicle of categories and their parts, the category table, and
 * the categories over a session's calls with the window, budget and autocompact lines.
 */
import { el, fmt, sortableTable, svg } from './dom';
import { ACCENT, AnatomyPayload, AnatomySessionPayload, CATEGORY_COLORS } from './generated';

function color(category: string): string {
  return CATEGORY_COLORS[category] ?? ACCENT.other;
}

/** The headline: tokens against the budget, the counter, and the reported input beside it. */
export function anatomyHead(p: AnatomyPayload): HTMLElement {
  const exact = p.exact ? 'exact' : 'estimate';
  const head = el(
    'div',
    { class: 'ctx-head', 'data-ctx-anatomy-head': '' },
    `${p.model}${p.call !== null && p.call !== undefined ? ` · call ${p.call}` : ''}: `,
    el('b', { 'data-ctx-anatomy-total': p.total }, fmt(p.total)),
    ` of ${fmt(p.budget)} tokens (${p.counter}, ${exact}) · window ${fmt(p.window)} · free ${fmt(p.free)}`
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
      el('div', {
        class: 'ctx-icicle-cell',
        title: `${category}: ${fmt(tokens)}`,
        style: `width:${width};background:${color(category)}`,
        'data-ctx-category': category
      })
    );
    const named = new Map<string, number>();
    for (const item of p.items.filter(i => i.category === category)) {
      named.set(item.name, (named.get(item.name) ?? 0) + item.tokens);
    }
    for (const [name, size] of [...named.entries()].sort((a, b) => b[1] - a[1])) {
      parts.append(
        el('div', {
          class: 'ctx-icicle-cell ctx-icicle-part',
          title: `${category}${name ? ` ${name}` : ''}: ${fmt(size)}`,
          style: `width:${((size / scale) * 100).toFixed(2)}%;background:${color(category)}`
        })
      );
    }
  }
  return el('div', { class: 'ctx-icicle' }, top, parts);
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

/** The categories over the calls, stacked, with the window, budget and autocompact lines. */
export function timeline(rows: readonly SessionRow[]): SVGElement {
  const width = 640;
  const height = 200;
  const pad = { left: 56, right: 12, top: 10, bottom: 24 };
  const n = Math.max(rows.length - 1, 1);
  // the budget line shows when it is near the calls' sizes; far above them it would flatten them
  const tops = rows.map(r => Math.max(r.total, Math.min(r.budget, 2 * r.total), r.replayed ?? 0));
  const top = Math.max(1, ...tops);
  const x = (i: number) => pad.left + (i / n) * (width - pad.left - pad.right);
  const y = (tokens: number) => height - pad.bottom - (Math.min(tokens, top) / top) * (height - pad.top - pad.bottom);
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    class: 'ctx-timeline',
    'data-ctx-timeline': rows.length
  });
  const base = rows.map(() => 0);
  const value = (r: SessionRow, category: string): number => Number((r as Record<string, unknown>)[category] ?? 0);
  for (const category of CATEGORY_ORDER) {
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
  }
  const line = (values: number[], stroke: string, dash: string, name: string): void => {
    const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    root.appendChild(
      svg('polyline', {
        points,
        fill: 'none',
        stroke,
        'stroke-dasharray': dash,
        'stroke-width': 1,
        'data-ctx-line': name
      })
    );
  };
  if (rows.some(r => r.budget <= top)) {
    line(
      rows.map(r => r.budget),
      ACCENT.budget,
      '5 4',
      'budget'
    );
  }
  if (rows.some(r => r.autocompact_at && r.autocompact_at <= top)) {
    line(
      rows.map(r => r.autocompact_at ?? 0),
      ACCENT.outline,
      '2 3',
      'autocompact'
    );
  }
  if (rows.some(r => r.replayed !== null && r.replayed !== undefined)) {
    line(
      rows.map(r => r.replayed ?? 0),
      ACCENT.used,
      '1 2',
      'replayed'
    );
  }
  rows.forEach((r, i) => {
    if (r.cache_break) {
      const mark = svg('line', {
        x1: x(i),
        y1: pad.top,
        x2: x(i),
        y2: height - pad.bottom,
        stroke: ACCENT.outline,
        'data-ctx-cache-break': r.call
      });
      const title = svg('title', {});
      title.textContent = `call ${r.call}: ${r.cache_break}`;
      mark.appendChild(title);
      root.appendChild(mark);
    }
  });
  const label = svg('text', { x: 4, y: pad.top + 8, 'font-size': 10, fill: 'currentColor' });
  label.textContent = fmt(top);
  root.appendChild(label);
  return root;
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
