/**
 * The refusals dashboard: counts by rung, code, tool and tenant for the current minute and hour,
 * refusals per minute over time, the most refused runs and principals, the alerts and approval
 * health, live from the analytics stream; any count opens the events behind it.
 */
import { api, errorText } from './api.js';
import { loadHealth } from './approval-health.js';
import { refusalChart } from './chart.js';
import { fill, h } from './dom.js';
import { drillDown } from './drill-down.js';
import { sessionEnded, startPage } from './page.js';
import { renderAlerts, renderCounts, renderTop } from './window-panels.js';

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
    view.status.textContent = `Analytics unavailable: ${errorText(minute)}`;
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
  renderCounts(view.minute, current('minute'), 'minute', 'This minute', view.drill);
  renderCounts(view.hour, current('hour'), 'hour', 'This hour', view.drill);
  view.chart.update([...windows.minute.values()]);
  renderTop(view.top, current('hour') ?? current('minute'), view.drill);
  renderAlerts(view.alertList, alerts);
}
