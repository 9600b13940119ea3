/**
 * Small DOM helpers. User content always goes in as text (textContent), never as HTML.
 */

export type Child = Node | string | number | null | undefined | false;

export function el(
  tag: string,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) {
      continue;
    }
    if (key === 'class') {
      node.className = String(value);
    } else {
      node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    node.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child
    );
  }
  return node;
}

export function fmt(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || Number.isNaN(value)) {
    return '';
  }
  return digits ? value.toFixed(digits) : Math.round(value).toLocaleString('en-US');
}

/** A cell that starts with an ISO date (2026-06-02…) is never broken at its hyphens. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/** A table whose columns sort when their header is clicked. */
export function sortableTable(
  headers: string[],
  rows: (string | number | null | undefined)[][],
  attrs: Record<string, string> = {},
  cellAttrs: (column: number) => Record<string, string> = () => ({})
): HTMLElement {
  const table = el('table', { class: 'ctx-table', ...attrs });
  const head = el('thead');
  const body = el('tbody');
  let sortColumn = -1;
  let ascending = true;
  const renderBody = (): void => {
    body.textContent = '';
    const sorted = [...rows];
    if (sortColumn >= 0) {
      sorted.sort((a, b) => {
        const x = a[sortColumn];
        const y = b[sortColumn];
        const nx = typeof x === 'number' ? x : Number.NaN;
        const ny = typeof y === 'number' ? y : Number.NaN;
        let cmp: number;
        if (!Number.isNaN(nx) && !Number.isNaN(ny)) {
          cmp = nx - ny;
        } else {
          cmp = String(x ?? '').localeCompare(String(y ?? ''));
        }
        return ascending ? cmp : -cmp;
      });
    }
    for (const row of sorted) {
      const tr = el('tr', { 'data-ctx-row': '' });
      row.forEach((cell, column) => {
        tr.appendChild(
          el(
            'td',
            {
              class: typeof cell === 'number' ? 'ctx-num' : ISO_DATE.test(String(cell ?? '')) ? 'ctx-nowrap' : '',
              ...cellAttrs(column)
            },
            typeof cell === 'number' ? fmt(cell, Number.isInteger(cell) ? 0 : 2) : (cell ?? '')
          )
        );
      });
      body.appendChild(tr);
    }
  };
  const headRow = el('tr');
  headers.forEach((name, index) => {
    const th = el('th', { 'data-ctx-sort': name, title: 'sort', tabindex: 0, 'aria-sort': 'none' }, name);
    const sort = (): void => {
      ascending = sortColumn === index ? !ascending : true;
      sortColumn = index;
      headRow.querySelectorAll('th').forEach(h => h.setAttribute('aria-sort', 'none'));
      th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
      renderBody();
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', event => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        sort();
      }
    });
    headRow.appendChild(th);
  });
  head.appendChild(headRow);
  table.appendChild(head);
  table.appendChild(body);
  renderBody();
  return table;
}

/**
 * A horizontal meter, coloured by the payload's `severity` (decided on the Python side by
 * ctx_lab.severity; the lab never recomputes it).
 */
export function meter(used: number, limit: number, label: string, level: string): HTMLElement {
  const share = limit > 0 ? Math.min(used / limit, 1) : 1;
  const bar = el('div', { class: `ctx-meter-fill ctx-${level}` });
  bar.style.width = `${(share * 100).toFixed(1)}%`;
  return el(
    'div',
    { class: 'ctx-meter', 'data-ctx-meter': level },
    el('div', { class: 'ctx-meter-track' }, bar),
    el('span', { class: 'ctx-meter-label' }, label)
  );
}

export function details(summary: string, open: boolean, ...children: Child[]): HTMLElement {
  return el('details', { open, 'data-ctx-section': summary }, el('summary', {}, summary), ...children);
}

/**
 * A payload's warnings: nothing when there are none, else "N warnings" that expands to the
 * list (open when there are only a few).
 */
export function warningList(warnings: readonly string[] | undefined): HTMLElement | null {
  const items = warnings ?? [];
  if (!items.length) {
    return null;
  }
  const label = `${items.length} warning${items.length === 1 ? '' : 's'}`;
  const node = el(
    'details',
    { class: 'ctx-warnings', open: items.length <= 3, 'data-ctx-warnings': items.length },
    el('summary', { class: 'ctx-warn' }, label)
  );
  const list = el('ul', {});
  items.forEach(w => list.appendChild(el('li', { class: 'ctx-warn', 'data-ctx-warning': '' }, w)));
  node.appendChild(list);
  return node;
}

/** A `<select>` offering `values` (each its own label). */
export function select(attrs: Record<string, string>, values: readonly string[]): HTMLSelectElement {
  return el('select', attrs, ...values.map(v => el('option', { value: v }, v))) as HTMLSelectElement;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element with its attributes (every chart's one builder). */
export function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    node.setAttribute(k, String(v));
  }
  return node;
}

/** How a figure was made (ctx_lab/claims.py): one label, or one per figure key ('*' the rest). */
export type Claim = 'billed' | 'simulated' | 'estimated' | 'open-loop';

/** The label a payload's `claim` gives the figure `key` ('' when it gives none). */
export function claimOf(claim: Claim | Record<string, Claim> | undefined, key = '*'): string {
  if (claim === undefined) {
    return '';
  }
  if (typeof claim === 'string') {
    return claim;
  }
  return claim[key] ?? claim['*'] ?? '';
}

/** A figure's label in text, compactly: ' [billed]' ('' when there is none). */
export function claimTag(claim: Claim | Record<string, Claim> | undefined, key = '*'): string {
  const label = claimOf(claim, key);
  return label ? ` [${label}]` : '';
}
