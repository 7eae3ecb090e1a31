import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '../metrics.js';
import { ANALYTICS_SERIES, createAnalyticsMetrics } from './analytics-metrics.js';

const read = (name: string) =>
  readFileSync(new URL(`../../../../infra/observability/${name}`, import.meta.url), 'utf8');

/**
 * Words of PromQL that are not series: operators, modifiers, literals, and the aggregations
 * (which may be followed by `by (...)` rather than by their parenthesis).
 */
const KEYWORDS = new Set(
  [
    ['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'atan2'],
    ['group_left', 'group_right', 'inf', 'nan'],
    ['sum', 'avg', 'min', 'max', 'count', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile'],
    ['count_values', 'group', 'limitk', 'limit_ratio'],
  ].flat(),
);

/**
 * The series a PromQL expression reads: identifiers that are not functions, keywords, label names
 * or literals. Strings, label matchers, ranges, Grafana variables and the label lists of
 * `by`/`without`/`on`/`ignoring`/`group_*` are removed first; a word followed by `(` is a function.
 */
function seriesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' $1 ')
    .replace(/#.*$/gm, ' ');
  const names: string[] = [];
  for (const m of bare.matchAll(/([0-9][\w.]*)|([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, literal, word, call] = m;
    if (literal !== undefined || word === undefined || call !== undefined) continue;
    if (!KEYWORDS.has(word.toLowerCase())) names.push(word);
  }
  return names;
}

/** The series a Grafana variable query reads (`label_values(series, label)` or PromQL). */
function seriesInVariable(query: string): string[] {
  const labelValues = /^\s*label_values\(\s*([^,]+?)\s*(,[^)]*)?\)\s*$/.exec(query);
  return seriesIn(labelValues?.[1] ?? query);
}

interface RuleFile {
  readonly groups: readonly {
    readonly name: string;
    readonly rules: readonly { record?: string; alert?: string; expr: string }[];
  }[];
}

interface Dashboard {
  readonly panels: readonly { title: string; targets?: readonly { expr: string }[] }[];
  readonly templating: { readonly list: readonly { query?: unknown }[] };
}

const rules = parse(read('toolgate-rules.yml')) as RuleFile;
const dashboard = JSON.parse(read('toolgate-dashboard.json')) as Dashboard;
const recorded = new Set(rules.groups.flatMap((g) => g.rules.flatMap((r) => r.record ?? [])));

/** Every series name the registries expose, histograms with their three suffixed series. */
async function exposedSeries(): Promise<Set<string>> {
  const registries = [createMetrics('validate').registry, createAnalyticsMetrics().registry];
  const names = new Set<string>();
  for (const registry of registries) {
    for (const metric of await registry.getMetricsAsJSON()) {
      // prom-client types `type` as a numeric enum but sets the string 'histogram'.
      const suffixes = String(metric.type) === 'histogram' ? ['_bucket', '_sum', '_count'] : [''];
      for (const suffix of suffixes) names.add(metric.name + suffix);
    }
  }
  return names;
}

/** Where each unknown series is named: `file: where: series`. */
function unknownIn(
  uses: readonly { where: string; series: readonly string[] }[],
  known: ReadonlySet<string>,
): string[] {
  return uses.flatMap(({ where, series }) =>
    series.filter((s) => !known.has(s) && !recorded.has(s)).map((s) => `${where}: ${s}`),
  );
}

const ruleUses = (file: RuleFile) =>
  file.groups.flatMap((g) =>
    g.rules.map((r) => ({ where: `rules ${r.record ?? r.alert}`, series: seriesIn(r.expr) })),
  );

const dashboardUses = (d: Dashboard) => [
  ...d.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `panel ${p.title}`, series: seriesIn(t.expr) })),
  ),
  ...d.templating.list.flatMap((v) => {
    const query = typeof v.query === 'object' ? (v.query as { query?: string }).query : undefined;
    return query === undefined ? [] : [{ where: 'variable', series: seriesInVariable(query) }];
  }),
];

describe('seriesIn', () => {
  it('finds the series of an expression, not its functions, labels, ranges or variables', () => {
    expect(
      seriesIn(
        'sum by (tenant, le) (rate(a_total{code!="none",x=~"$tenant"}[$__rate_interval] offset 1h))' +
          ' / ignoring (label) group_left sum(b:rec:rate5m) > 0.5 and on(stage) c == bool 1e3',
      ),
    ).toEqual(['a_total', 'b:rec:rate5m', 'c']);
  });
});

describe('the shipped Prometheus rules and Grafana dashboard', () => {
  it('parse, and name rules and panels that read something', () => {
    expect(rules.groups.length).toBeGreaterThan(0);
    for (const use of [...ruleUses(rules), ...dashboardUses(dashboard)]) {
      expect(use.series, use.where).not.toEqual([]);
    }
  });

  it('name only series the services expose or the rules record', async () => {
    const known = await exposedSeries();
    expect(unknownIn([...ruleUses(rules), ...dashboardUses(dashboard)], known)).toEqual([]);
  });

  it('would notice a series renamed in the registries', async () => {
    const known = await exposedSeries();
    known.delete(ANALYTICS_SERIES.lateEvents);
    known.delete('toolgate_handle_seconds_bucket');
    expect(unknownIn(ruleUses(rules), known)).toEqual([
      'rules stage:toolgate_handle_seconds:p99_5m: toolgate_handle_seconds_bucket',
      `rules ToolgateAnalyticsLateEvents: ${ANALYTICS_SERIES.lateEvents}`,
    ]);
  });

  it('show every analytics series on the dashboard', () => {
    const shown = new Set(dashboardUses(dashboard).flatMap((u) => u.series));
    const histogram = ANALYTICS_SERIES.transactionSeconds;
    const missing = Object.values(ANALYTICS_SERIES).filter(
      (name) => !shown.has(name) && !(name === histogram && shown.has(`${histogram}_bucket`)),
    );
    expect(missing).toEqual([]);
  });
});
