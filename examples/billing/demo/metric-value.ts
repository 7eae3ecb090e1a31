/**
 * Reading one counter from a `/metrics` page (the Prometheus text format), so that the demo can
 * see what a process counted rather than assume it.
 */

/**
 * The sum of the samples of `name` whose labels include every one of `labels` (0 when none).
 * Reads lines `name{a="x",b="y"} 3`; comments and other metrics are skipped.
 */
export function metricValue(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>>,
): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const sample = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (sample === null || sample[1] !== name) continue;
    const own = labelsOf(sample[2] ?? '');
    if (Object.entries(labels).every(([k, v]) => own.get(k) === v)) sum += Number(sample[3]);
  }
  return sum;
}

function labelsOf(text: string): Map<string, string> {
  const labels = new Map<string, string>();
  for (const [, key, value] of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
    if (key !== undefined && value !== undefined) labels.set(key, value);
  }
  return labels;
}

/**
 * The value of {@link metricValue} on the page at `url` now.
 *
 * @throws Error when the page cannot be read (within 5 s) or does not answer 200.
 */
export async function scrapeMetric(
  url: string,
  name: string,
  labels: Readonly<Record<string, string>>,
): Promise<number> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return metricValue(text, name, labels);
}
