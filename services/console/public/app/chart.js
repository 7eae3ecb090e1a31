/**
 * Refusals per minute as a uPlot time series over the minute windows kept, with the numbers
 * also in words for people who do not see the chart.
 */
import uPlot from '/vendor/uPlot.esm.js';
import { h } from './dom.js';

/** Minutes the chart spans, up to now. */
const SPAN_MINUTES = 60;

/**
 * A row of refusals: a code, and neither run nor parked for a person (`pending` is counted as a
 * decision but refuses nothing).
 */
export function isRefusal(row) {
  return row.code !== null && row.disposition !== 'confirm' && row.disposition !== 'execute';
}

/** The chart panel; `update(windows)` redraws it from minute windows. */
export function refusalChart() {
  const plotArea = h('div', { class: 'plot', role: 'img', 'aria-label': 'Refusals per minute' });
  const summary = h('p', { class: 'summary', id: 'chart-summary' });
  const node = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'chart-title' },
    h('h2', { id: 'chart-title' }, 'Refusals per minute'),
    plotArea,
    summary,
  );
  let plot;
  const width = () => Math.max(280, plotArea.clientWidth || 600);
  const options = () => ({
    width: width(),
    height: 220,
    scales: {
      x: {
        time: true,
        range: () => {
          const now = Date.now() / 1000;
          return [now - SPAN_MINUTES * 60, now + 60];
        },
      },
      y: { range: (_, min, max) => [0, Math.max(5, max)] },
    },
    series: [
      {},
      { label: 'Refusals', stroke: '#b3261e', fill: 'rgba(179, 38, 30, 0.12)', width: 2 },
    ],
    axes: [{ stroke: '#333' }, { stroke: '#333' }],
    legend: { show: false },
  });
  window.addEventListener('resize', () => plot?.setSize({ width: width(), height: 220 }));
  const update = (windows) => {
    const sorted = windows.slice().sort((a, b) => a.start.localeCompare(b.start));
    const xs = sorted.map((w) => Date.parse(w.start) / 1000);
    const ys = sorted.map((w) => w.rows.filter(isRefusal).reduce((sum, r) => sum + r.count, 0));
    const data = [xs, ys];
    if (plot === undefined) plot = new uPlot(options(), data, plotArea);
    else plot.setData(data);
    const last = ys.at(-1);
    const text =
      sorted.length === 0
        ? 'No minutes counted yet.'
        : `${sorted.length} ${sorted.length === 1 ? 'minute' : 'minutes'} counted; the latest had ${last} refusals; the most in one minute was ${Math.max(...ys)}.`;
    summary.textContent = text;
    plotArea.setAttribute('aria-label', `Refusals per minute. ${text}`);
  };
  return { node, update };
}
