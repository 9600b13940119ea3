/**
 * Renderers for every application/vnd.ctx-lab.<kind>+json payload.
 */
import { renderAnatomy, renderAnatomySession } from './anatomy';
import { renderPolicies } from './policies';
import { decision } from './front';
import { areaKey, axes, callTicks, frame, legendBox, lineKey } from './chart';
import { exercise } from './exercise';
import { claimTag, details, el, fmt, meter, sortableTable, svg } from './dom';
import {
  ACCENT,
  BudgetPayload,
  BuildPayload,
  CachePayload,
  CheckPayload,
  CompressPayload,
  ContextPayload,
  CorpusPayload,
  CountersPayload,
  DoctorPayload,
  EntriesPayload,
  HistoryPayload,
  JournalPayload,
  ModelPayload,
  ModelsPayload,
  PacketPayload,
  PagePayload,
  PayloadByKind,
  PayloadKind,
  ProfilesPayload,
  ReadPayload,
  CalibrationEvaluationPayload,
  CalibrationPayload,
  CalibrationsPayload,
  ReplayPayload,
  SECTION_COLORS,
  SECTION_LABELS,
  SERIES_COLORS,
  CACHE_COLORS,
  TITLE_MARKUP,
  Severity,
  TokensPayload,
  UsagePayload
} from './generated';

export { PAYLOAD_VERSION } from './generated';
export const KINDS = [
  'packet',
  'entries',
  'tokens',
  'model',
  'models',
  'doctor',
  'budget',
  'page',
  'read',
  'build',
  'compress',
  'usage',
  'history',
  'journal',
  'context',
  'counters',
  'profiles',
  'replay',
  'calibration',
  'calibrations',
  'calibration_evaluation',
  'corpus',
  'anatomy',
  'anatomy_session',
  'cache',
  'policies',
  'check'
];

type LedgerRow = PacketPayload['ledger'][number] | EntriesPayload['rows'][number];
type Allocation = PacketPayload['allocation'];
type ModelRow = ModelPayload | ModelsPayload['models'][number];
type Budget = BudgetPayload | NonNullable<PagePayload['budget']>;
type Position = NonNullable<ReadPayload['position']>;
type Usage = UsagePayload | HistoryPayload['usage'];

export function allocationBar(rows: Allocation, budget: number, used: number): HTMLElement {
  const total = Math.max(budget, used, 1);
  const track = el('div', { class: 'ctx-alloc', 'data-ctx-allocation': '' });
  for (const row of rows) {
    if (!row.used) {
      continue;
    }
    const part = el('div', {
      class: 'ctx-alloc-part',
      title: `${row.section}: ${row.used} tokens`,
      'data-ctx-alloc-section': row.section
    });
    part.style.width = `${((row.used / total) * 100).toFixed(2)}%`;
    part.style.background = SECTION_COLORS[row.section] ?? '#999';
    track.appendChild(part);
  }
  const line = el('div', { class: 'ctx-alloc-budget', title: `budget ${budget}` });
  line.style.left = `${((budget / total) * 100).toFixed(2)}%`;
  track.appendChild(line);
  const legend = el('div', { class: 'ctx-legend' });
  for (const row of rows) {
    if (row.used) {
      const swatch = el('span', { class: 'ctx-swatch' });
      swatch.style.background = SECTION_COLORS[row.section] ?? '#999';
      legend.appendChild(el('span', {}, swatch, `${row.section} ${row.used}`));
    }
  }
  return el('div', {}, track, legend);
}

/** The ledger; source and warnings columns appear when some row has them. */
function ledgerTable(rows: readonly LedgerRow[]): HTMLElement {
  const themed = rows.some(r => typeof r.source === 'string' && r.source.split('/').length > 2);
  const warned = rows.some(r => (r.warnings ?? []).length > 0);
  const ruled = rows.some(r => typeof r.rule === 'string' && r.rule);
  const headers = ['section', 'title', 'date', 'score', 'tokens', 'action', 'reason'];
  if (ruled) {
    headers.push('rule');
  }
  if (themed) {
    headers.push('source');
  }
  if (warned) {
    headers.push('warnings');
  }
  return sortableTable(
    headers,
    rows.map(r => {
      const cells: (string | number)[] = [
        r.section,
        r.title.replace(TITLE_MARKUP, ''),
        r.date ?? '',
        r.score === null || r.score === undefined ? '' : Number(r.score).toFixed(2),
        r.tokens,
        r.action,
        r.reason
      ];
      if (ruled) {
        cells.push(r.rule ?? '');
      }
      if (themed) {
        cells.push(String(r.source ?? '').replace(/^\.context\//, ''));
      }
      if (warned) {
        cells.push((r.warnings ?? []).join('; '));
      }
      return cells;
    }),
    { 'data-ctx-ledger': '' },
    // the action and its reason are the entry's fate: what exercise mode hides
    (column): Record<string, string> => (column === 5 || column === 6 ? { 'data-ctx-fate': '' } : {})
  );
}

function list(items: string[], ordered = false): HTMLElement {
  const node = el(ordered ? 'ol' : 'ul', {});
  items.forEach(item => node.appendChild(el('li', {}, item)));
  return node;
}

function renderPacket(p: PacketPayload): HTMLElement {
  const head = el(
    'div',
    { class: 'ctx-head', 'data-ctx-packet': '' },
    el('b', {}, 'Context packet '),
    el('span', { 'data-ctx-tokens-used': '' }, fmt(p.tokens_used)),
    ' / ',
    el('span', { 'data-ctx-budget': '' }, fmt(p.budget)),
    ` tokens (${p.counter})`,
    p.over_budget ? el('span', { class: 'ctx-bad', 'data-ctx-over-budget': '' }, ' over budget: tier 1 only') : null,
    p.est_cost_usd !== undefined ? ` · ~$${Number(p.est_cost_usd).toFixed(4)}` : null,
    p.focus ? el('span', { class: 'ctx-muted', 'data-ctx-focus': '' }, ` · focus “${p.focus}”`) : null,
    p.profile && p.profile !== 'design'
      ? el('span', { class: 'ctx-muted', 'data-ctx-profile': p.profile }, ` · profile ${p.profile}`)
      : null,
    p.overshoot
      ? el(
          'span',
          { class: 'ctx-bad', 'data-ctx-overshoot': p.overshoot },
          ` over budget by ${fmt(p.overshoot)} tokens`
        )
      : null,
    p.relevance && p.relevance !== 'keywords'
      ? el(
          'span',
          { class: 'ctx-muted', 'data-ctx-relevance-rule': p.relevance, title: p.relevance_reason || '' },
          ` · relevance ${p.relevance}`
        )
      : null
  );
  const entries = (items: PacketPayload['decisions']): HTMLElement[] =>
    items.map(e =>
      details(`${e.title} (${e.date ?? 'undated'}, score ${Number(e.score).toFixed(2)})`, false, el('pre', {}, e.text))
    );
  const counted = p.counted ?? {};
  const sections: [string, HTMLElement | HTMLElement[], number][] = [
    [SECTION_LABELS.read_order, list(p.read_order ?? [], true), (p.read_order ?? []).length],
    [SECTION_LABELS.constitution, list(p.constitution ?? []), (p.constitution ?? []).length],
    [
      SECTION_LABELS.tasks,
      list((p.tasks ?? []).map((t: string) => t.replace(/^(\s*)- \[ \] /, '$1☐ '))),
      (p.tasks ?? []).length
    ],
    [SECTION_LABELS.conventions, list(p.conventions ?? []), (p.conventions ?? []).length],
    [
      SECTION_LABELS.steering,
      (p.steering ?? []).map(s => details(s.name, false, el('pre', {}, s.text))),
      (p.steering ?? []).length
    ],
    [SECTION_LABELS.decisions, entries(p.decisions ?? []), (p.decisions ?? []).length],
    [SECTION_LABELS.learnings, entries(p.learnings ?? []), (p.learnings ?? []).length],
    [
      SECTION_LABELS.also_noted,
      list((p.summaries ?? []).map(s => `${s.title} (${s.section})`)),
      (p.summaries ?? []).length
    ]
  ];
  const body = el('div', { class: 'ctx-sections' });
  for (const [title, content, count] of sections) {
    if (title === SECTION_LABELS.steering && !count) {
      continue;
    }
    const block = details(
      `${title} (${count})`,
      title !== SECTION_LABELS.decisions && title !== SECTION_LABELS.learnings
    );
    block.setAttribute('data-ctx-section', title);
    (Array.isArray(content) ? content : [content]).forEach(c => block.appendChild(c));
    body.appendChild(block);
  }
  const more = Object.entries(counted)
    .map(([k, v]) => `${v} more ${k}`)
    .join(', ');
  const root = el(
    'div',
    {},
    head,
    allocationBar(p.allocation ?? [], p.budget, p.tokens_used),
    el(
      'div',
      { class: 'ctx-exercise-note ctx-muted' },
      'Exercise: predict each entry’s fate, then click its “?” to reveal it.'
    ),
    body,
    more ? el('div', { class: 'ctx-muted' }, `Counted only: ${more}`) : null,
    details(`Ledger (${(p.ledger ?? []).length} items)`, false, ledgerTable(p.ledger ?? [])),
    details('Markdown', false, el('pre', {}, p.markdown ?? ''))
  );
  head.append(' ', exercise(root));
  return root;
}

function renderEntries(p: EntriesPayload): HTMLElement {
  return el(
    'div',
    {},
    el('div', { class: 'ctx-head' }, `Scored entries: ${fmt(p.tokens_used)} / ${fmt(p.budget)} tokens (${p.counter})`),
    ledgerTable(p.rows ?? [])
  );
}

function renderTokens(p: TokensPayload): HTMLElement {
  const counters: string[] = p.counters ?? [];
  const rows = (p.files ?? []).map(f => [f.path, f.bytes, ...counters.map(c => f.counts[c])]);
  if ((p.files ?? []).length !== 1) {
    rows.push(['total', (p.files ?? []).reduce((s: number, f) => s + f.bytes, 0), ...counters.map(c => p.total[c])]);
  }
  const missing = Object.entries(p.unavailable ?? {}).map(([name, why]) =>
    el('div', { class: 'ctx-muted', 'data-ctx-unavailable': name }, `${name}: unavailable — ${why}`)
  );
  return el('div', { 'data-ctx-tokens': '' }, sortableTable(['path', 'bytes', ...counters], rows), ...missing);
}

function modelRow(m: ModelRow): (string | number)[] {
  return [
    m.model,
    m.context_window,
    m.max_output,
    m.effective_input_budget,
    m.source,
    m.matched ?? '',
    m.input_price_per_mtok ?? '',
    m.output_price_per_mtok ?? '',
    m.tokenizer ?? '(estimate)'
  ];
}
const MODEL_HEADERS = ['model', 'window', 'max out', 'budget', 'source', 'matched', '$/M in', '$/M out', 'tokenizer'];

function renderModel(p: ModelPayload): HTMLElement {
  return el(
    'div',
    { 'data-ctx-model': p.model },
    el(
      'div',
      { class: 'ctx-head' },
      `${p.model}: `,
      el('b', { 'data-ctx-budget': '' }, fmt(p.effective_input_budget)),
      ' input tokens'
    ),
    sortableTable(MODEL_HEADERS, [modelRow(p)])
  );
}

function renderModels(p: ModelsPayload): HTMLElement {
  return el(
    'div',
    {},
    el('div', { class: 'ctx-head' }, `${(p.models ?? []).length} models (${p.registry})`),
    sortableTable(MODEL_HEADERS, (p.models ?? []).map(modelRow))
  );
}

const DOCTOR_MARKS: Record<string, string> = { ok: '✔', optional: '○ optional', PROBLEM: '✘' };

function renderDoctor(p: DoctorPayload): HTMLElement {
  return sortableTable(
    ['', 'check', 'found', 'fix'],
    (p.checks ?? []).map(c => [DOCTOR_MARKS[c.status] ?? c.status, c.name, c.detail, c.ok ? '' : c.fix]),
    { 'data-ctx-doctor': String(p.ok) }
  );
}

function budgetView(b: Budget | null | undefined): HTMLElement | null {
  if (!b) {
    return null;
  }
  return el(
    'div',
    { 'data-ctx-budget-view': '' },
    meter(
      b.tokens_used,
      b.max_tokens,
      `${fmt(b.tokens_remaining)} tokens, ${b.pages_remaining} pages left`,
      b.severity ?? 'ok'
    )
  );
}

function renderBudget(p: BudgetPayload): HTMLElement {
  return el(
    'div',
    {},
    budgetView(p),
    sortableTable(
      ['', 'pages', 'tokens'],
      [
        ['max', p.max_pages, p.max_tokens],
        ['used', p.pages_used, p.tokens_used],
        ['remaining', p.pages_remaining, p.tokens_remaining]
      ]
    )
  );
}

export function lineView(content: string, start: number): HTMLElement {
  const table = el('table', { class: 'ctx-lines', 'data-ctx-lines': '' });
  if (!content) {
    return table;
  }
  content.split('\n').forEach((line, i) => {
    table.appendChild(el('tr', {}, el('td', { class: 'ctx-lineno' }, start + i), el('td', {}, el('code', {}, line))));
  });
  return table;
}

function renderPage(p: PagePayload): HTMLElement {
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'ctx-head', 'data-ctx-page': p.artifact_id },
      `${p.artifact_id} — lines ${p.start_line}–${p.end_line} of ${p.total_lines} (${p.tokens} tokens)`,
      p.truncated
        ? el(
            'span',
            { class: 'ctx-warn', 'data-ctx-truncated': '' },
            ` cut by the quota; continue at line ${p.next_start_line}`
          )
        : null
    ),
    budgetView(p.budget),
    lineView(p.content ?? '', p.start_line)
  );
}

function position(pos: Position): HTMLElement {
  const bar = el('div', { class: 'ctx-position', 'data-ctx-position': '' });
  const total = Number(pos?.total ?? 0);
  if (total) {
    const start = Number(pos.start ?? 0);
    const mark = el('div', { class: 'ctx-position-mark' });
    mark.style.left = `${((start / total) * 100).toFixed(1)}%`;
    mark.style.width = `${Math.max(((Number(pos.end ?? start) - start) / total) * 100, 1).toFixed(1)}%`;
    bar.appendChild(mark);
  }
  return bar;
}

function renderRead(p: ReadPayload): HTMLElement {
  const pos = p.position;
  const info = p.page_info
    ? `pages ${p.page_info.page_start}–${p.page_info.page_end} of ${p.page_info.total_pages}`
    : pos
      ? `${pos.chunks ? `chunk ${fmt(Number(pos.chunk))} of ${fmt(Number(pos.chunks))}, ` : ''}characters ${fmt(Number(pos.start))}–${fmt(Number(pos.end))} of ${fmt(Number(pos.total))}`
      : '';
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'ctx-head', 'data-ctx-read': p.kind },
      `${p.uri} · ${p.kind} · ${p.content_type} · ${info}`,
      p.truncated ? ' · more follows' : ' · end'
    ),
    position(p.position),
    p.cursor_reset
      ? el(
          'div',
          { class: 'ctx-warn', 'data-ctx-cursor-reset': '' },
          `restarted from the beginning: ${p.cursor_reason}`
        )
      : null,
    p.note ? el('div', { class: 'ctx-warn', 'data-ctx-read-note': '' }, p.note) : null,
    el('pre', {}, p.content ?? ''),
    p.truncated && p.next_cursor && p.next_line ? readNext(p.next_line, p.next_cursor) : null
  );
}

/** The line that reads the next chunk, with a copy button, and the cursor it continues from. */
function readNext(line: string, cursor: string): HTMLElement {
  const copy = el('button', { class: 'ctx-copy', type: 'button', title: 'Copy this line' }, 'copy');
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(line).then(
      () => {
        copy.textContent = 'copied';
      },
      () => {
        copy.textContent = 'select and copy';
      }
    );
  });
  return el(
    'div',
    { class: 'ctx-read-next', 'data-ctx-read-next': '' },
    'next chunk: ',
    el('code', { 'data-ctx-next-line': '' }, line),
    ' ',
    copy,
    el('div', { class: 'ctx-muted' }, 'cursor ', el('code', { 'data-ctx-cursor': '' }, cursor))
  );
}

function renderBuild(p: BuildPayload): HTMLElement {
  const rows = (p.blocks ?? []).map(b => [
    b.block,
    b.priority,
    b.policy_initial === b.policy_final ? b.policy_final : `${b.policy_initial} → ${b.policy_final}`,
    b.tokens_before,
    b.tokens_after,
    b.tokens_before ? `${Math.round((1 - b.tokens_after / b.tokens_before) * 100)}%` : '',
    b.action
  ]);
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'ctx-head', 'data-ctx-build': '' },
      `Built prompt: ${fmt(p.tokens)} / ${fmt(p.budget)} tokens (${p.counter})`
    ),
    meter(p.tokens, p.budget, `${fmt(p.tokens)} of ${fmt(p.budget)}`, p.severity),
    sortableTable(['block', 'priority', 'policy', 'before', 'after', 'saved', 'action'], rows, {
      'data-ctx-blocks': ''
    }),
    details('Prompt', false, el('pre', {}, p.prompt ?? ''))
  );
}

function renderCompress(p: CompressPayload): HTMLElement {
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'ctx-head', 'data-ctx-compress': '' },
      `${p.path}: ${p.policy} — ${p.tokens_before} → ${p.tokens_after} tokens`
    ),
    p.note ? el('div', { class: 'ctx-muted' }, p.note) : null,
    el('pre', {}, p.text ?? '')
  );
}

export function gauge(p: Usage): HTMLElement {
  const severity: Severity = p.severity ?? 'ok';
  const fill = el('div', { class: `ctx-gauge-fill ctx-sev-${severity}` });
  fill.style.width = `${Math.min(Number(p.percentage ?? 0), 100).toFixed(1)}%`;
  return el(
    'div',
    { class: 'ctx-gauge', 'data-ctx-usage': '', 'data-ctx-severity': String(severity) },
    el('div', { class: 'ctx-gauge-track' }, fill),
    el('span', {}, p.described ?? p.compact ?? ''),
    p.estimated_cost_usd !== null && p.estimated_cost_usd !== undefined
      ? el('span', { class: 'ctx-muted' }, ` ~$${Number(p.estimated_cost_usd).toFixed(4)} per call`)
      : null
  );
}

function renderHistory(p: HistoryPayload): HTMLElement {
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'ctx-head', 'data-ctx-history': p.state },
      `${p.path}: ${p.messages} messages, ${p.summaries} summaries (${p.model}) — ${p.state.replace(/_/g, ' ')}`
    ),
    gauge(p.usage ?? {}),
    (p.to_summarize ?? []).length
      ? el(
          'div',
          { class: 'ctx-warn', 'data-ctx-to-summarize': '' },
          `to summarize: messages ${p.to_summarize_range ?? ''} (${p.to_summarize.length}, ${p.excess_tokens} tokens over)`
        )
      : null,
    sortableTable(
      ['segment', 'messages', 'tokens'],
      (p.segments ?? []).map(s => [s.kind, s.range ?? s.ids.join(', '), s.tokens])
    )
  );
}

function renderJournal(p: JournalPayload): HTMLElement {
  const node = el('div', { 'data-ctx-journal': p.action ?? '' });
  if (p.steps) {
    node.appendChild(
      sortableTable(
        ['step', 'state', 'outcome', 'chars'],
        p.steps.map(s => [s.step_id, s.state, s.outcome, s.chars])
      )
    );
    return node;
  }
  node.appendChild(el('div', { class: 'ctx-head' }, p.path ?? 'journal'));
  if (p.stream) {
    const r = p.stream.recoverable;
    node.appendChild(
      el(
        'div',
        {},
        `stream: ${p.stream.total_entries} entries (${p.stream.unsealed_entries} unsealed)`,
        r ? ` · step ${r.step_id} is ${r.state}` : ' · nothing to recover'
      )
    );
    if (r) {
      node.appendChild(el('pre', {}, r.partial_text));
    }
  }
  if (p.tools) {
    const b = p.tools.recoverable;
    node.appendChild(
      el(
        'div',
        {},
        `tools: ${p.tools.open_batches} open batches`,
        b ? ` · batch ${b.batch_id}: ${b.calls.length} calls, pending ${b.pending.join(', ') || 'none'}` : ''
      )
    );
  }
  return node;
}

function renderUsage(p: UsagePayload): HTMLElement {
  return gauge(p);
}

function renderContext(p: ContextPayload): HTMLElement {
  return el('div', {}, p.found ? `project: ${p.dir}` : 'no .context/ found');
}

function renderProfiles(p: ProfilesPayload): HTMLElement {
  const differing = p.rows.filter(r => r.rule !== null);
  const over = p.ctx_tokens - p.budget;
  return el(
    'div',
    { 'data-ctx-profiles': '' },
    el(
      'div',
      { class: 'ctx-head' },
      `Budget ${fmt(p.budget)}: design ${fmt(p.design_tokens)} tokens, ctx-0.8 ${fmt(p.ctx_tokens)} tokens`,
      over > 0 ? el('span', { class: 'ctx-bad', 'data-ctx-overshoot': over }, ` (over budget by ${fmt(over)})`) : null,
      ` · ${differing.length} of ${p.rows.length} items differ`
    ),
    sortableTable(
      ['section', 'title', 'design', 'ctx-0.8', 'rule'],
      differing.map(r => [r.section, r.title, r.design ?? '—', r['ctx-0.8'] ?? '—', r.rule ?? '']),
      { 'data-ctx-profile-rows': '' }
    )
  );
}

function renderCounters(p: CountersPayload): HTMLElement {
  return sortableTable(
    ['counter', 'kind', 'available', 'reason'],
    p.counters.map(c => [c.name, c.exact ? 'exact' : 'estimate', c.available ? 'yes' : 'no', c.reason]),
    { 'data-ctx-counters': '' }
  );
}

const MODEL_COLORS = SERIES_COLORS;

/** Context tokens per call for each model, its budget dashed, summarizations as triangles,
 * recorded compactions dotted — with a call axis, a token axis and a legend. */
function replayChart(p: ReplayPayload): HTMLElement {
  const rows = p.rows ?? [];
  const callNumbers = [...new Set(rows.map(r => r.call))].sort((a, b) => a - b);
  const first = callNumbers.length ? callNumbers[0] : 0;
  const last = callNumbers.length ? callNumbers[callNumbers.length - 1] : 1;
  const budgets = rows.map(r => r.budget);
  const top = Math.max(1, ...rows.map(r => r.context_tokens), ...budgets) * 1.05;
  const f = frame(640, 220, first, Math.max(last, first + 1), top);
  const root = svg('svg', {
    viewBox: `0 0 ${f.width} ${f.height}`,
    width: '100%',
    role: 'img',
    'data-ctx-replay-chart': ''
  });
  const keys: HTMLElement[] = [];
  for (const call of p.recorded_compactions ?? []) {
    root.appendChild(
      svg('line', {
        x1: f.x(call),
        y1: f.pad.top,
        x2: f.x(call),
        y2: f.height - f.pad.bottom,
        stroke: ACCENT.outline,
        'stroke-dasharray': '2 3',
        'data-ctx-compaction': call
      })
    );
  }
  p.models.forEach((model, i) => {
    const color = MODEL_COLORS[i % MODEL_COLORS.length];
    const mine = rows.filter(r => r.model === model);
    const points = mine.map(r => `${f.x(r.call).toFixed(1)},${f.y(r.context_tokens).toFixed(1)}`).join(' ');
    root.appendChild(
      svg('polyline', { points, fill: 'none', stroke: color, 'stroke-width': 1.4, 'data-ctx-model': model })
    );
    keys.push(lineKey(color, '', model, `model-${i}`));
    const budget = mine.length ? mine[mine.length - 1].budget : 0;
    root.appendChild(
      svg('line', {
        x1: f.pad.left,
        y1: f.y(budget),
        x2: f.width - f.pad.right,
        y2: f.y(budget),
        stroke: color,
        'stroke-dasharray': '5 4',
        'stroke-width': 1,
        'data-ctx-line': `budget-${i}`
      })
    );
    keys.push(lineKey(color, '5 4', `${model} budget ${fmt(budget)}`, `budget-${i}`));
    for (const r of mine.filter(r => r.summarized_tokens > 0)) {
      const cx = f.x(r.call);
      const cy = f.y(r.context_tokens);
      root.appendChild(
        svg('path', {
          d: `M${cx - 4},${cy - 6} L${cx + 4},${cy - 6} L${cx},${cy} Z`,
          fill: color,
          'data-ctx-summarized': r.call
        })
      );
    }
  });
  if (rows.some(r => r.summarized_tokens > 0)) {
    keys.push(el('span', { class: 'ctx-legend-item', 'data-ctx-legend-line': 'summarized' }, '▼ summarized'));
  }
  if ((p.recorded_compactions ?? []).length) {
    keys.push(lineKey(ACCENT.outline, '2 3', 'recorded compaction', 'compaction'));
  }
  axes(root, f, callTicks(callNumbers), 'call', 'context tokens');
  return el('div', { class: 'ctx-chart', 'data-ctx-chart': 'replay' }, root, legendBox('replay', ...keys));
}

function renderReplay(p: ReplayPayload): HTMLElement {
  const events = (p.rows ?? []).filter(r => r.event);
  return el(
    'div',
    { 'data-ctx-replay': p.format },
    el(
      'div',
      { class: 'ctx-head' },
      `${p.source}: ${p.format}, ${p.calls} calls, ${p.messages} messages, ${(p.recorded_compactions ?? []).length} recorded compactions`
    ),
    sortableTable(
      ['model', 'counter', 'budget', 'peak context', 'first summarization', 'summarizations', 'cost USD'],
      p.summary.map(s => [
        s.model,
        `${s.counter ?? ''}${s.exact ? '' : ' ~'}`,
        s.budget ?? '',
        s.peak_context,
        s.first_summarization === null || s.first_summarization === undefined
          ? 'never'
          : `call ${s.first_summarization}`,
        s.summarizations,
        s.cost_usd === null || s.cost_usd === undefined ? '?' : s.cost_usd.toFixed(4)
      ]),
      { 'data-ctx-replay-summary': '' }
    ),
    replayChart(p),
    events.length
      ? details(
          `${events.length} calls with events`,
          false,
          sortableTable(
            ['model', 'call', 'context', 'over by', 'event'],
            events.map(r => [r.model, r.call, r.context_tokens, r.excess_tokens ?? '', r.event])
          )
        )
      : null
  );
}

function renderCalibration(p: CalibrationPayload): HTMLElement {
  return el(
    'div',
    { 'data-ctx-calibration': p.model },
    el('div', { class: 'ctx-head' }, p.description),
    sortableTable(
      ['model', 'counter', 'ratio', '90 % interval', 'calls', 'method', 'overhead'],
      [
        [
          p.model,
          p.counter,
          p.ratio.toFixed(3),
          `${p.low.toFixed(3)}–${p.high.toFixed(3)}`,
          p.calls,
          p.method,
          p.overhead ?? 0
        ]
      ]
    ),
    p.saved_to ? el('div', { class: 'ctx-muted' }, `saved: counter=model uses it for ${p.model}`) : null
  );
}

function renderCalibrations(p: CalibrationsPayload): HTMLElement {
  const rows = p.calibrations.map(c => [
    c.model,
    c.counter,
    c.ratio.toFixed(3),
    `${c.low.toFixed(3)}–${c.high.toFixed(3)}`,
    c.calls,
    c.fitted_on ?? '',
    c.problem ? `not applied: ${c.problem}` : 'yes'
  ]);
  return el(
    'div',
    { 'data-ctx-calibrations': String(p.calibrations.length) },
    el(
      'div',
      { class: 'ctx-head' },
      p.forgotten ? `forgot ${p.forgotten}; stored in ${p.path}` : `stored in ${p.path}`
    ),
    rows.length
      ? sortableTable(['model', 'counter', 'ratio', '90 % interval', 'calls', 'fitted', 'applied'], rows)
      : el('div', { class: 'ctx-muted' }, 'no calibrations stored')
  );
}

function renderCheck(p: CheckPayload): HTMLElement {
  const sessions = `${p.sessions.length} session${p.sessions.length === 1 ? '' : 's'}`;
  const ran = Object.values(p.rules).filter(r => r.enabled).length;
  const found = `${p.findings.length} finding${p.findings.length === 1 ? '' : 's'}`;
  const head = p.findings.length
    ? `${found} in ${sessions} (${p.rules_from})`
    : `clean: ${sessions}, ${ran} rules (${p.rules_from})`;
  const rows = p.findings.map(f => [f.session, f.call, f.code, f.rule, f.category, f.message]);
  return el(
    'div',
    { 'data-ctx-check': String(p.findings.length) },
    el('div', { class: p.findings.length ? 'ctx-head ctx-bad' : 'ctx-head ctx-ok' }, head),
    rows.length
      ? el(
          'div',
          { 'data-ctx-check-findings': String(rows.length) },
          sortableTable(['session', 'call', 'code', 'rule', 'category', 'message'], rows)
        )
      : el('span'),
    ...p.notes.map(n => el('div', { class: 'ctx-muted' }, `note: ${n}`))
  );
}

function renderCalibrationEvaluation(p: CalibrationEvaluationPayload): HTMLElement {
  const pct = (value: number | null | undefined): string =>
    value === null || value === undefined ? '–' : `${(value * 100).toFixed(1)} %`;
  const scalars = Object.entries(p.scalar_median_abs_error)
    .map(([name, value]) => `${name} ${pct(value)}`)
    .join(' · ');
  const classes = p.classes.map(c => [
    c.class,
    c.ratio.toFixed(3),
    `${c.low.toFixed(3)}–${c.high.toFixed(3)}`,
    c.samples,
    c.pooled ? 'too few: every pair' : ''
  ]);
  const rows = p.rows.map(r => [r.source, r.call, r.reported, r.estimate, r.low, r.high, r.scalar]);
  return el(
    'div',
    { 'data-ctx-calibration-evaluation': String(p.rows.length) },
    el(
      'div',
      { class: 'ctx-head' },
      `${p.model}: ${p.rows.length} calls inside the 90 % band on ${pct(p.inside_band)}, median absolute error ${pct(p.median_abs_error)} (per class on ${p.base})`
    ),
    el('div', { class: 'ctx-muted' }, `beside it: ${scalars}`),
    sortableTable(['class', 'ratio', '90 % band', 'growth pairs', 'note'], classes),
    details(
      'every call',
      false,
      sortableTable(['session', 'call', 'reported', 'estimate', 'low', 'high', 'scalar'], rows)
    )
  );
}

const share = (part: number | undefined, whole: number | undefined): string =>
  whole ? `${Math.round((100 * (part ?? 0)) / whole)} %` : '–';

function renderCorpus(p: CorpusPayload): HTMLElement {
  const failed = p.failures.length;
  const head = `${p.kind}: ${p.items} items (${failed} failed), ${p.rows.length} rows${p.executor ? `; ${p.executor}` : ''}`;
  const summary =
    p.kind === 'sweep'
      ? sortableTable(
          ['budget', 'model', 'items', 'median tokens', 'over', 'full', 'summarized', 'counted only'],
          p.summary.map(s => [
            s.budget ?? 'model',
            s.model ?? '–',
            s.items ?? 0,
            s.median_tokens ?? '',
            s.over_budget ?? 0,
            share(s.full, s.entries),
            share(s.summarized, s.entries),
            share(s.counted_only, s.entries)
          ]),
          { 'data-ctx-corpus-summary': p.kind }
        )
      : p.kind === 'policies'
        ? sortableTable(
            ['setting', 'sessions', 'calls', 'median peak', 'compactions', 'probes lost', 'cost USD'],
            p.summary.map(s => [
              String(s.policy ?? ''),
              s.sessions ?? 0,
              s.calls ?? 0,
              Number(s.median_peak ?? 0),
              Number(s.compactions ?? 0),
              Number(s.probes_lost ?? 0),
              s.cost_usd === null || s.cost_usd === undefined ? '?' : s.cost_usd.toFixed(2)
            ]),
            { 'data-ctx-corpus-summary': p.kind }
          )
        : sortableTable(
            ['model', 'sessions', 'calls', 'needing summarization', 'median first', 'cost USD'],
            p.summary.map(s => [
              s.model ?? '',
              s.sessions ?? 0,
              s.calls ?? 0,
              s.needing_summarization ?? 0,
              s.median_first_summarization === null || s.median_first_summarization === undefined
                ? '–'
                : `call ${s.median_first_summarization}`,
              s.cost_usd === null || s.cost_usd === undefined ? '?' : s.cost_usd.toFixed(2)
            ]),
            { 'data-ctx-corpus-summary': p.kind }
          );
  return el(
    'div',
    { 'data-ctx-corpus': p.kind },
    el('div', { class: 'ctx-head' }, head),
    summary,
    p.kind === 'policies' ? decision(p.settings, p.recommended) : null,
    failed
      ? details(
          `${failed} items failed`,
          false,
          sortableTable(
            ['item', 'error'],
            p.failures.slice(0, 200).map(f => [f.item, `${f.error_type}: ${f.error}`])
          )
        )
      : null
  );
}

const usd = (value: number | null | undefined): string =>
  value === null || value === undefined ? '?' : `$${value.toFixed(4)}`;

const CACHE_PARTS: Array<[string, string, string]> = [
  ['cache_read', 'read from the cache', CACHE_COLORS.read],
  ['cache_write', 'written to the cache', CACHE_COLORS.write],
  ['input', 'fresh input', CACHE_COLORS.fresh]
];

/** Each call's input as the caching rules predict it — read, written, fresh, stacked — with
 * the reported read marked, a call axis, a token axis and a legend. */
function cacheChart(p: CachePayload): HTMLElement {
  const calls = p.calls;
  const totals = calls.map(c => c.cache_read + c.cache_write + c.input);
  const f = frame(640, 200, 0, Math.max(calls.length - 1, 1), Math.max(1, ...totals) * 1.05);
  const root = svg('svg', { viewBox: `0 0 ${f.width} ${f.height}`, class: 'ctx-timeline', 'data-ctx-cache-chart': '' });
  const step = calls.length > 1 ? f.x(1) - f.x(0) : 40;
  const bar = Math.max(Math.min(step * 0.8, 24), 1);
  calls.forEach((c, i) => {
    let base = 0;
    for (const [key, , color] of CACHE_PARTS) {
      const value = Number((c as Record<string, unknown>)[key] ?? 0);
      if (value > 0) {
        root.appendChild(
          svg('rect', {
            x: f.x(i) - bar / 2,
            y: f.y(base + value),
            width: bar,
            height: Math.max(f.y(base) - f.y(base + value), 0.5),
            fill: color,
            'data-ctx-cache-part': key
          })
        );
      }
      base += value;
    }
    if (c.reported) {
      root.appendChild(
        svg('line', {
          x1: f.x(i) - bar / 2,
          x2: f.x(i) + bar / 2,
          y1: f.y(c.reported.cache_read),
          y2: f.y(c.reported.cache_read),
          stroke: ACCENT.edge,
          'stroke-width': 2,
          'data-ctx-reported-read': c.call
        })
      );
    }
  });
  const ticks = callTicks(calls.map((_, i) => i)).map(([i]): [number, string] => [i, String(calls[i].call)]);
  axes(root, f, ticks, 'call', 'input tokens');
  const keys = CACHE_PARTS.map(([key, text, color]) =>
    areaKey(color, `${text} (predicted)`, { 'data-ctx-legend-area': key })
  );
  if (calls.some(c => c.reported)) {
    keys.push(lineKey(ACCENT.edge, '', 'reported cache read', 'reported'));
  }
  return el('div', { class: 'ctx-chart', 'data-ctx-chart': 'cache' }, root, legendBox('cache', ...keys));
}

function renderCache(p: CachePayload): HTMLElement {
  const matched = p.matched === null ? 'no usage to compare' : `${(p.matched * 100).toFixed(1)} %`;
  const hidden =
    p.hidden_prefix_inferred && p.hidden_prefix !== null
      ? ` · hidden prefix ${fmt(p.hidden_prefix)} tokens (inferred)`
      : '';
  const misses = p.calls.filter(c => c.miss_cause);
  const rows = p.calls.map(c => [
    c.call,
    c.cache_read,
    c.cache_write,
    c.input,
    c.reported?.cache_read ?? '',
    c.reported?.cache_write ?? '',
    c.miss_cause ?? ''
  ]);
  return el(
    'div',
    { 'data-ctx-cache': String(p.calls.length) },
    el(
      'div',
      { class: 'ctx-head' },
      `${p.source}: ${p.calls.length} calls, sizes from ${p.sizes}; predicted within 2 % on ${matched}${hidden}`
    ),
    el(
      'div',
      { class: 'ctx-muted', 'data-ctx-cache-cost': '' },
      `input cost ${usd(p.cost.actual)}${claimTag(p.cost.claim, 'actual')} · no cache ${usd(p.cost.no_cache)} · ideal ${usd(p.cost.ideal)}${claimTag(p.cost.claim, 'ideal')} · ${misses.length} misses`
    ),
    cacheChart(p),
    sortableTable(['call', 'read', 'write', 'fresh', 'reported read', 'reported write', 'miss'], rows, {
      'data-ctx-cache-calls': ''
    })
  );
}

type Renderers = { [K in PayloadKind]: (p: PayloadByKind[K]) => HTMLElement };

/** One renderer per payload kind; TypeScript fails the build when a kind has none. */
export const RENDERERS: Renderers = {
  packet: renderPacket,
  entries: renderEntries,
  tokens: renderTokens,
  model: renderModel,
  models: renderModels,
  doctor: renderDoctor,
  budget: renderBudget,
  page: renderPage,
  read: renderRead,
  build: renderBuild,
  compress: renderCompress,
  usage: renderUsage,
  history: renderHistory,
  journal: renderJournal,
  context: renderContext,
  counters: renderCounters,
  profiles: renderProfiles,
  replay: renderReplay,
  calibration: renderCalibration,
  calibrations: renderCalibrations,
  calibration_evaluation: renderCalibrationEvaluation,
  corpus: renderCorpus,
  anatomy: renderAnatomy,
  anatomy_session: renderAnatomySession,
  cache: renderCache,
  policies: renderPolicies,
  check: renderCheck
};

export function mimeType(kind: string): string {
  return `application/vnd.ctx-lab.${kind}+json`;
}
