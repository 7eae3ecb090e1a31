/**
 * Where an accepted call's time goes, hop by hop (`npm run bench -- --hops`). After the run, every
 * pipeline topic of a system is read again from the start, and each record's timestamp is matched
 * to its proposal. kafkajs stamps a record when its hop sends it, in the transaction that commits
 * it, so the gap between one topic's stamp and the next is one hop: the previous transaction's
 * commit, the fetch, the handling and the wait for the transaction. Only calls that went the whole
 * way without a person (no confirmation request) count, so both systems are compared on the same
 * path. The reading is the only part with I/O; the rest is pure.
 */
import { gateTopics, readTopicWindow, type Bus, type Codec } from '@toolgate/platform';
import { percentilesOf } from '../core/stats.js';
import { percentOf } from './summarize.js';

/** The topics of one system, in the order a call goes through them. */
export const HOPS = [
  'proposals',
  'validated',
  'authorized',
  'cleared',
  'commands',
  'results',
  'observations',
] as const;
export type Hop = (typeof HOPS)[number];

/** One record's stamp: which proposal (or command), on which hop, when. */
export interface Stamp {
  readonly hop: Hop | 'confirmations';
  /** The proposalId, except on `results`, which carry only the commandId. */
  readonly id: string;
  /** The commandId of a command, to match its result. */
  readonly commandId?: string;
  readonly at: number;
}

/** Median and 90th percentile of one hop's gaps, in ms, over `calls` calls. */
export interface HopGap {
  readonly hop: Hop;
  readonly p50: number;
  readonly p90: number;
}

/** The gaps of the calls whose proposalId `wanted` accepts. */
export interface HopSummary {
  readonly calls: number;
  readonly gaps: readonly HopGap[];
  /** Proposal sent → observation written, the sum of the gaps per call. */
  readonly total: { readonly p50: number; readonly p90: number };
}

/** The proposal a record belongs to, from its decoded value. */
function stampOf(hop: Stamp['hop'], value: Record<string, unknown>, at: number): Stamp | undefined {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (hop === 'results') {
    const commandId = text(value['commandId']);
    return commandId === undefined ? undefined : { hop, id: commandId, at };
  }
  if (hop === 'commands') {
    const context = value['context'];
    const id =
      typeof context === 'object' && context !== null
        ? text((context as Record<string, unknown>)['proposalId'])
        : undefined;
    const commandId = text(value['commandId']);
    return id === undefined || commandId === undefined ? undefined : { hop, id, commandId, at };
  }
  const id = text(value['proposalId']);
  return id === undefined ? undefined : { hop, id, at };
}

/**
 * The stamp of each hop (in {@link HOPS} order) of every call `wanted` accepts that went the whole
 * way without a person, by proposalId. Pure.
 */
export function callHopTimes(
  stamps: readonly Stamp[],
  wanted: (proposalId: string) => boolean,
): Map<string, number[]> {
  const proposalOf = new Map<string, string>();
  for (const s of stamps) if (s.commandId !== undefined) proposalOf.set(s.commandId, s.id);
  const confirmed = new Set<string>();
  const calls = new Map<string, Partial<Record<Hop, number>>>();
  for (const s of stamps) {
    if (s.hop === 'confirmations') {
      confirmed.add(s.id);
      continue;
    }
    const id = s.hop === 'results' ? proposalOf.get(s.id) : s.id;
    if (id === undefined || !wanted(id)) continue;
    const call = calls.get(id) ?? {};
    // The first stamp of a hop: a record written again (a retry after a fault) is not the call's.
    call[s.hop] ??= s.at;
    calls.set(id, call);
  }
  const out = new Map<string, number[]>();
  for (const [id, call] of calls) {
    const at = HOPS.map((hop) => call[hop]);
    if (confirmed.has(id) || at.some((t) => t === undefined)) continue;
    out.set(id, at as number[]);
  }
  return out;
}

/** Per hop, the gaps between consecutive stamps of the calls `wanted` accepts. Pure. */
export function summarizeHops(
  stamps: readonly Stamp[],
  wanted: (proposalId: string) => boolean,
): HopSummary {
  const gaps: number[][] = HOPS.slice(1).map(() => []);
  const totals: number[] = [];
  for (const times of callHopTimes(stamps, wanted).values()) {
    for (let i = 1; i < times.length; i += 1)
      (gaps[i - 1] as number[]).push((times[i] as number) - (times[i - 1] as number));
    totals.push((times.at(-1) as number) - (times[0] as number));
  }
  const of = (xs: number[]) => {
    const { p50, p90 } = percentilesOf(xs);
    return { p50, p90 };
  };
  return {
    calls: totals.length,
    gaps: HOPS.slice(1).map((hop, i) => ({ hop, ...of(gaps[i] as number[]) })),
    total: of(totals),
  };
}

/** One topic to read, and which hop its records are. */
export interface HopTopic {
  readonly name: string;
  readonly hop: Stamp['hop'];
}

/** How long reading one topic to its end may take, in ms (a run writes tens of thousands). */
const READ_TIMEOUT_MS = 120_000;

/**
 * Reads every committed record of `topics` to the end (the platform's operator reader, in a
 * throwaway group under `groupPrefix`) and returns their stamps. Records that did not decode, or
 * name no proposal, are skipped.
 */
export async function readStamps(
  bus: Bus,
  codec: Codec,
  groupPrefix: string,
  topics: readonly HopTopic[],
): Promise<Stamp[]> {
  const stamps: Stamp[] = [];
  for (const { name, hop } of topics) {
    await readTopicWindow(bus, codec, {
      topic: name,
      groupPrefix,
      timeoutMs: READ_TIMEOUT_MS,
      onRecord: (r) => {
        const value = r.value;
        if (typeof value !== 'object' || value === null) return;
        const stamp = stampOf(hop, value as Record<string, unknown>, r.timestamp);
        if (stamp !== undefined) stamps.push(stamp);
      },
    });
  }
  return stamps;
}

/** Each hop's gaps per system and load level (`"25"` for 25 % of the relay's saturation). */
export type HopReport = Readonly<Record<'relay' | 'gate', Readonly<Record<string, HopSummary>>>>;

/** Where one system's topics are: its prefix, its tools' command topics, its tenants' observations. */
export interface HopSystem {
  readonly topicPrefix: string;
  readonly tools: readonly string[];
  readonly tenants: readonly string[];
}

/** Where each system's topics are. */
export interface HopSystems {
  readonly relay: HopSystem;
  readonly gate: HopSystem;
}

/** The topics of one system to read, with their hops. */
export function hopTopicsOf(system: HopSystem): HopTopic[] {
  const t = gateTopics(system.topicPrefix);
  const byName = HOPS.filter((h) => h !== 'commands' && h !== 'observations');
  return [
    ...byName.map((hop) => ({ name: t[hop], hop })),
    ...system.tools.map((tool) => ({ name: t.command(tool), hop: 'commands' as const })),
    ...system.tenants.map((tenant) => ({
      name: t.observationsOf(tenant),
      hop: 'observations' as const,
    })),
    { name: t.confirmations, hop: 'confirmations' },
  ];
}

/**
 * Reads both systems' topics and summarizes the open-loop runs at each fraction. A run's
 * proposals are `<system initial>.o<percent>r<rep>-<system>.<n>` (traffic.ts).
 */
export async function measureHops(
  bus: Bus,
  codec: Codec,
  groupPrefix: string,
  systems: HopSystems,
  fractions: readonly number[],
): Promise<HopReport> {
  const report: Record<string, Record<string, HopSummary>> = {};
  for (const system of ['relay', 'gate'] as const) {
    const stamps = await readStamps(bus, codec, groupPrefix, hopTopicsOf(systems[system]));
    const bySystem: Record<string, HopSummary> = {};
    for (const fraction of fractions) {
      const percent = String(percentOf(fraction));
      const open = new RegExp(`^${system[0]}\\.o${percent}r\\d+-${system}\\.`);
      bySystem[percent] = summarizeHops(stamps, (id) => open.test(id));
    }
    report[system] = bySystem;
  }
  return report as HopReport;
}

/** One line per system and load level: each hop's p50 (p90) in ms, then the sum. */
export function formatHops(report: HopReport): string[] {
  const ms = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(0));
  return (['relay', 'gate'] as const).flatMap((system) =>
    Object.entries(report[system]).map(
      ([percent, s]) =>
        `hops at ${percent} %, ${system} (${s.calls} calls), p50 (p90) ms: ` +
        s.gaps.map((g) => `${g.hop} ${ms(g.p50)} (${ms(g.p90)})`).join(', ') +
        `; sent → observation ${ms(s.total.p50)} (${ms(s.total.p90)})`,
    ),
  );
}
