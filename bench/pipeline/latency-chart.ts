/**
 * The latency-versus-load chart as a small hand-written SVG: offered load (fraction of the relay's
 * saturation) across, latency (ms, log scale) up, one colour per system, solid p50 and dashed p99.
 * Pure: the same summaries always give the same bytes.
 */
import type { SystemName, SystemSummary } from './summarize.js';

const WIDTH = 720;
const HEIGHT = 420;
const MARGIN = { left: 70, right: 150, top: 40, bottom: 55 };
const COLOURS: Readonly<Record<SystemName, string>> = {
  onehop: '#888888',
  relay: '#1f77b4',
  gate: '#d62728',
};

/** One line of the chart. */
interface Series {
  readonly label: string;
  readonly colour: string;
  readonly dashed: boolean;
  readonly points: readonly (readonly [x: number, y: number])[];
}

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function seriesOf(systems: Readonly<Partial<Record<SystemName, SystemSummary>>>): Series[] {
  return (Object.entries(systems) as [SystemName, SystemSummary][]).flatMap(([name, s]) =>
    (['p50', 'p99'] as const).map((which) => ({
      label: `${name} ${which}`,
      colour: COLOURS[name],
      dashed: which === 'p99',
      points: s.loads
        .map((l) => [l.fraction, l[which].median] as const)
        .filter(([, y]) => Number.isFinite(y) && y > 0),
    })),
  );
}

/** Decades of ms that cover `values`, e.g. [1, 10, 100]. */
function decades(values: readonly number[]): number[] {
  const lo = 10 ** Math.floor(Math.log10(Math.min(...values)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...values)));
  const out: number[] = [];
  for (let d = lo; d <= hi * 1.0001; d *= 10) out.push(d);
  return out.length > 1 ? out : [lo, lo * 10];
}

/** The SVG document; says so in its body when there is nothing to draw. */
export function latencyChart(
  systems: Readonly<Partial<Record<SystemName, SystemSummary>>>,
  title: string,
): string {
  const series = seriesOf(systems).filter((s) => s.points.length > 0);
  const ys = series.flatMap((s) => s.points.map(([, y]) => y));
  const open = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`;
  const heading = `<text x="${MARGIN.left}" y="22" font-size="14">${escape(title)}</text>`;
  if (ys.length === 0)
    return `${open}${heading}<text x="${MARGIN.left}" y="80">no open-loop runs to draw</text></svg>\n`;
  const ticks = decades(ys);
  const [yLo, yHi] = [ticks[0] ?? 1, ticks.at(-1) ?? 10];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (f: number) => MARGIN.left + f * plotW;
  const y = (ms: number) =>
    MARGIN.top + plotH - ((Math.log10(ms) - Math.log10(yLo)) / Math.log10(yHi / yLo)) * plotH;
  const parts = [open, heading];
  for (const t of ticks) {
    parts.push(
      `<line x1="${x(0)}" x2="${x(1)}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="${x(0) - 8}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${t} ms</text>`,
    );
  }
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<text x="${x(f).toFixed(1)}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${f * 100}%</text>`,
    );
  }
  parts.push(
    `<text x="${x(0.5)}" y="${HEIGHT - 12}" text-anchor="middle">offered load, % of the relay's saturation throughput</text>`,
    `<rect x="${x(0)}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#444"/>`,
  );
  for (const [i, s] of series.entries()) {
    const d = s.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    const ly = MARGIN.top + 10 + i * 18;
    parts.push(
      `<polyline points="${d}" fill="none" stroke="${s.colour}" stroke-width="2"${dash}/>`,
      ...s.points.map(
        ([px, py]) =>
          `<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="3" fill="${s.colour}"/>`,
      ),
      `<line x1="${WIDTH - MARGIN.right + 12}" x2="${WIDTH - MARGIN.right + 40}" y1="${ly}" y2="${ly}" stroke="${s.colour}" stroke-width="2"${dash}/>`,
      `<text x="${WIDTH - MARGIN.right + 46}" y="${ly + 4}">${escape(s.label)}</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
