/**
 * The dashboard's panels of one window: refusals by rung, code, tool and tenant, the most refused
 * runs and principals; and the alerts. Every count opens the events behind it.
 */
import { isRefusal } from './chart.js';
import { fill, h, timeOf } from './dom.js';

const DIMENSIONS = [
  { key: 'rung', label: 'By rung' },
  { key: 'code', label: 'By code' },
  { key: 'tool', label: 'By tool' },
  { key: 'tenant', label: 'By tenant' },
];

function refusalsBy(window, key) {
  const counts = new Map();
  for (const row of window?.rows ?? []) {
    if (!isRefusal(row)) continue;
    counts.set(row[key], (counts.get(row[key]) ?? 0) + row.count);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

/** Fills `section` with the refusals of window `w` of `size`, by each dimension. */
export function renderCounts(section, w, size, title, drill) {
  const total = refusalsBy(w, 'rung').reduce((sum, [, n]) => sum + n, 0);
  const span =
    w === undefined ? 'no window yet' : `${timeOf(w.start)}–${timeOf(w.end)}, ${w.state}`;
  fill(
    section,
    h('h2', { id: `${size}-title` }, title),
    h(
      'p',
      { class: 'total' },
      h('strong', { 'data-total': size }, String(total)),
      ` ${total === 1 ? 'refusal' : 'refusals'} (${span})`,
    ),
    h(
      'div',
      { class: 'tables' },
      DIMENSIONS.map(({ key, label }) => countTable(w, size, key, label, drill)),
    ),
  );
}

function countTable(w, size, key, label, drill) {
  const rows = refusalsBy(w, key);
  return h(
    'table',
    { class: 'count-table', 'data-dimension': key },
    h('caption', {}, label),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, key), h('th', { scope: 'col' }, 'count'))),
    h(
      'tbody',
      {},
      rows.length === 0
        ? h('tr', {}, h('td', { colspan: '2', class: 'empty' }, 'none'))
        : rows.map(([value, count]) =>
            h(
              'tr',
              { 'data-value': value ?? '' },
              h('th', { scope: 'row' }, value ?? '(none)'),
              h(
                'td',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'count',
                    'aria-label': `Show the ${count} refusals with ${key} ${value ?? 'none'} (${size})`,
                    onclick: () =>
                      drill.open({
                        size,
                        start: w.start,
                        ...(value === null ? {} : { [key]: value }),
                      }),
                  },
                  String(count),
                ),
              ),
            ),
          ),
    ),
  );
}

function refusals(n) {
  return `${n} ${n === 1 ? 'refusal' : 'refusals'}`;
}

/** Fills `section` with the most refused runs and principals of window `w`. */
export function renderTop(section, w, drill) {
  const list = (title, items, key) =>
    h(
      'div',
      {},
      h('h3', {}, title),
      items.length === 0
        ? h('p', { class: 'empty' }, 'none')
        : h(
            'ol',
            { class: 'top-list' },
            items.slice(0, 10).map((item) =>
              h(
                'li',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    onclick: () => drill.open({ size: w.size, start: w.start, [key]: item.id }),
                  },
                  `${item.id}`,
                ),
                ` ${refusals(item.refusals)}${item.tenant === null ? '' : ` (${item.tenant})`}`,
              ),
            ),
          ),
    );
  fill(
    section,
    h('h2', { id: 'top-title' }, 'Most refused'),
    h(
      'div',
      { class: 'tables' },
      list('Runs', w?.topRefusedRuns ?? [], 'runId'),
      list('Principals', w?.topRefusedPrincipals ?? [], 'subject'),
    ),
  );
}

/** Fills `section` with the newest `alerts`. */
export function renderAlerts(section, alerts) {
  fill(
    section,
    h('h2', { id: 'alerts-title' }, 'Alerts'),
    alerts.length === 0
      ? h('p', { class: 'empty' }, 'No alerts.')
      : h(
          'ul',
          { class: 'alerts' },
          alerts.slice(0, 20).map((a) =>
            h(
              'li',
              {},
              h('span', { class: 'badge alert' }, a.rule),
              ` ${a.subject.kind} ${a.subject.id}: `,
              Object.entries(a.counts)
                .map(([name, n]) => `${name} ${n} (threshold ${a.threshold[name] ?? '—'})`)
                .join(', '),
              a.mode === 'log' ? ' (log only)' : '',
              `, ${timeOf(a.raisedAt)}`,
            ),
          ),
        ),
  );
}
