/**
 * The refusals dashboard: counts by rung, code, tool and tenant for the current minute and hour,
 * refusals per minute over time, the most refused runs and principals, the alerts and approval
 * health, live from the analytics stream; any count opens the events behind it.
 */
import { api, errorText } from './api.js';
import { isRefusal, refusalChart } from './chart.js';
import { fill, h, timeOf } from './dom.js';
import { drillDown } from './drill-down.js';
import { sessionEnded, startPage } from './page.js';

const DIMENSIONS = [
  { key: 'rung', label: 'By rung' },
  { key: 'code', label: 'By code' },
  { key: 'tool', label: 'By tool' },
  { key: 'tenant', label: 'By tenant' },
];

const windows = { minute: new Map(), hour: new Map() };
const alerts = [];

void startPage(async (main) => {
  const status = h(
    'p',
    { class: 'status', role: 'status', 'aria-live': 'polite', id: 'dashboard-status' },
    'Loading…',
  );
  const minute = h('section', {
    class: 'panel counts',
    'data-size': 'minute',
    'aria-labelledby': 'minute-title',
  });
  const hour = h('section', {
    class: 'panel counts',
    'data-size': 'hour',
    'aria-labelledby': 'hour-title',
  });
  const chart = refusalChart();
  const top = h('section', { class: 'panel', 'aria-labelledby': 'top-title' });
  const alertList = h('section', { class: 'panel', 'aria-labelledby': 'alerts-title' });
  const health = h('section', {
    class: 'panel',
    'aria-labelledby': 'health-title',
    id: 'approval-health',
  });
  const drill = drillDown();
  fill(
    main,
    h('h1', {}, 'Refusals'),
    status,
    h('div', { class: 'grid' }, minute, hour),
    chart.node,
    h('div', { class: 'grid' }, top, alertList),
    health,
    drill.node,
  );
  const view = { status, minute, hour, chart, top, alertList, drill };
  const loaded = await loadAll(view);
  if (!loaded) return;
  render(view);
  void loadHealth(health);
  follow(view);
  setInterval(() => render(view), 5000);
});

async function loadAll(view) {
  const [minute, hour, alerted] = await Promise.all([
    api('GET', '/api/analytics/windows?size=minute'),
    api('GET', '/api/analytics/windows?size=hour'),
    api('GET', '/api/analytics/alerts'),
  ]);
  if (!minute.ok) {
    view.status.textContent =
      minute.status === 403
        ? `Analytics unavailable: ${errorText(minute)}`
        : `Analytics unavailable: ${errorText(minute)}`;
    return false;
  }
  for (const w of minute.data.windows) windows.minute.set(w.start, w);
  for (const w of hour.ok ? hour.data.windows : []) windows.hour.set(w.start, w);
  if (alerted.ok) alerts.push(...alerted.data.alerts.slice().reverse());
  view.status.textContent = 'Live.';
  return true;
}

function follow(view) {
  const source = new EventSource('/api/analytics/stream');
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      render(view);
    });
  };
  source.addEventListener('window', (event) => {
    const w = JSON.parse(event.data);
    windows[w.size]?.set(w.start, w);
    later();
  });
  source.addEventListener('alert', (event) => {
    alerts.unshift(JSON.parse(event.data));
    later();
  });
  source.addEventListener('session_ended', () => {
    source.close();
    sessionEnded();
  });
  source.addEventListener('overflow', () => {
    source.close();
    view.status.textContent = 'The stream fell behind; reload the page.';
  });
  source.onerror = () => {
    view.status.textContent =
      source.readyState === EventSource.CLOSED ? 'Disconnected; reload the page.' : 'Reconnecting…';
  };
  source.onopen = () => {
    view.status.textContent = 'Live.';
  };
}

/** The window of `size` that holds now, else the newest kept. */
function current(size) {
  const now = Date.now();
  const all = [...windows[size].values()].sort((a, b) => a.start.localeCompare(b.start));
  return all.find((w) => Date.parse(w.start) <= now && now < Date.parse(w.end)) ?? all.at(-1);
}

function render(view) {
  renderCounts(view.minute, 'minute', 'This minute', view.drill);
  renderCounts(view.hour, 'hour', 'This hour', view.drill);
  view.chart.update([...windows.minute.values()]);
  renderTop(view.top, view.drill);
  renderAlerts(view.alertList);
}

function refusalsBy(window, key) {
  const counts = new Map();
  for (const row of window?.rows ?? []) {
    if (!isRefusal(row)) continue;
    counts.set(row[key], (counts.get(row[key]) ?? 0) + row.count);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

function renderCounts(section, size, title, drill) {
  const w = current(size);
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

function renderTop(section, drill) {
  const w = current('hour') ?? current('minute');
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

function renderAlerts(section) {
  fill(
    section,
    h('h2', { id: 'alerts-title' }, 'Alerts'),
    alerts.length === 0
      ? h('p', { class: 'empty' }, 'No alerts.')
      : h(
          'ul',
          { class: 'alerts' },
          alerts
            .slice(0, 20)
            .map((a) =>
              h(
                'li',
                {},
                h('span', { class: 'badge alert' }, a.rule),
                ` ${a.subject?.kind ?? ''} ${a.subject?.id ?? ''}`,
                a.message === undefined ? null : ` — ${a.message}`,
              ),
            ),
        ),
  );
}

async function loadHealth(section) {
  const since = new Date(Date.now() - 3600_000).toISOString();
  const answer = await api('GET', `/api/analytics/approvals?since=${encodeURIComponent(since)}`);
  const title = h('h2', { id: 'health-title' }, 'Approval health, last hour');
  if (!answer.ok) {
    fill(
      section,
      title,
      h(
        'p',
        { class: 'empty' },
        answer.status === 404
          ? 'Approval health unavailable on this gate.'
          : `Approval health unavailable: ${errorText(answer)}`,
      ),
    );
    return;
  }
  const a = answer.data;
  const rate = a.approvalRate === null ? '—' : `${Math.round(a.approvalRate * 100)} %`;
  const median = a.medianDecideMs === null ? '—' : `${Math.round(a.medianDecideMs / 1000)} s`;
  fill(
    section,
    title,
    h(
      'dl',
      { class: 'facts health' },
      [
        ['Approval rate', rate],
        ['Median time to decide', median],
        ['Parked', a.parked],
        ['Approved', a.approved],
        ['Rejected', a.rejected],
        ['Expired', a.expired],
        ['Changed', a.changed],
      ].map(([term, value]) => [h('dt', {}, term), h('dd', {}, String(value))]),
    ),
  );
}
