/**
 * The chaos run's judge: reads, as the stack's admin, every gate topic of the run's namespace
 * written from the run's start to its end (proposals, each tenant's observations, quarantine,
 * each tool's commands, results, audit) and the tools' effect log under the run's Redis prefix,
 * then hands them to the pure {@link judge}. Reading is the only I/O; what counts as a breach is
 * in `judge.ts`.
 */
import {
  connectRedis,
  createCodec,
  createRedisObjectStore,
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  gateTopics,
  OBJECT_NAMESPACE,
  readTopicWindow,
  SILENT_LOGGER,
  type Codec,
  type ReadRecord,
} from '@toolgate/platform';
import { adminRedisUrl } from '../../infra/provision.js';
import { adminBus } from '../pipeline/bench-namespace.js';
import type { ChaosRunFacts, JudgeRun } from './chaos-facts.js';
import { formatChaosTable } from './format-chaos.js';
import {
  judge,
  type RunRecords,
  type SeenCommand,
  type SeenObservation,
  type SeenQuarantine,
} from './judge.js';

/** Records stamped this long before the first send still belong to the run (clock steps). */
const LEAD_MS = 5_000;

/** How long reading one topic to its end may take, ms (a full run writes tens of thousands). */
const READ_TIMEOUT_MS = 180_000;

/** Topics read at once: each is a consumer of its own. */
const PARALLEL_READS = 4;

/** Reads the run's records and judges them. */
export const judgeRun: JudgeRun = async (facts) =>
  judge(facts, await readRunRecords(facts), { now: new Date() });

/** The report as printed lines (the run prints them after the load). */
export function formatChaosReport(report: Parameters<typeof formatChaosTable>[0]): string[] {
  return formatChaosTable(report).split('\n');
}

/**
 * Everything the judge needs, read back from the run's namespace: topic records stamped from
 * just before `startedAt` to `endedAt` (an answer after the run stopped waiting does not count),
 * and the whole effect log of each tenant (the namespace is the run's own).
 */
export async function readRunRecords(
  facts: Pick<ChaosRunFacts, 'space' | 'stack' | 'startedAt' | 'endedAt'>,
): Promise<RunRecords> {
  const t = gateTopics(facts.space.topicPrefix);
  const bus = adminBus(facts.stack, `${facts.space.topicPrefix}judge`);
  const codec = createCodec({
    registryUrl: facts.stack.addresses.schemaRegistryUrl,
    logger: SILENT_LOGGER,
  });
  const proposals: string[] = [];
  const observations: SeenObservation[] = [];
  const commands: SeenCommand[] = [];
  const results: string[] = [];
  const quarantine: SeenQuarantine[] = [];
  const audit: string[] = [];
  const inWindow = (r: ReadRecord) => r.timestamp <= facts.endedAt;
  const reads: (() => Promise<unknown>)[] = [
    ...EXAMPLE_TENANTS.map(
      (tenant) => () =>
        read(t.observationsOf(tenant), (r) => {
          const o = observationOf(r);
          if (o !== undefined) observations.push(o);
        }),
    ),
    ...EXAMPLE_TOOLS.map(
      (tool) => () =>
        read(t.command(tool), (r) => {
          const c = commandOf(r);
          if (c !== undefined) commands.push(c);
        }),
    ),
    () => read(t.proposals, (r) => pushText(proposals, field(r.value, 'proposalId'))),
    () => read(t.results, (r) => pushText(results, field(r.value, 'commandId'))),
    () => read(t.audit, (r) => pushText(audit, field(r.value, 'proposalId'))),
    () =>
      readTopicWindow(bus, RAW_CODEC, {
        ...windowOf(t.quarantine),
        onRecord: (r) => {
          if (!inWindow(r)) return;
          const proposalId = proposalIdInBytes(r.value);
          quarantine.push({ ...(proposalId === undefined ? {} : { proposalId }), at: r.timestamp });
        },
      }),
  ];
  function windowOf(topic: string) {
    return {
      topic,
      sinceMs: facts.startedAt - LEAD_MS,
      groupPrefix: facts.space.topicPrefix,
      timeoutMs: READ_TIMEOUT_MS,
    };
  }
  function read(topic: string, onRecord: (r: ReadRecord) => void) {
    return readTopicWindow(bus, codec, {
      ...windowOf(topic),
      onRecord: (r) => {
        if (inWindow(r)) onRecord(r);
      },
    });
  }
  try {
    await inBatches(reads, PARALLEL_READS);
  } finally {
    await bus.close();
  }
  return {
    proposals,
    observations,
    commands,
    results,
    quarantine,
    audit,
    effects: await readEffects(facts),
  };
}

/** Every tenant's effect log under the run's Redis prefix, as the stack's admin. */
async function readEffects(facts: Pick<ChaosRunFacts, 'space' | 'stack'>) {
  const conn = connectRedis({
    url: adminRedisUrl(facts.stack),
    prefix: facts.space.redisPrefix,
    timeoutMs: 10_000,
  });
  try {
    const objects = createRedisObjectStore(conn, OBJECT_NAMESPACE);
    const logs = await Promise.all(EXAMPLE_TENANTS.map((tenant) => objects.effects(tenant)));
    return logs.flat().map((e) => ({ ...e, at: Date.parse(e.at) }));
  } finally {
    await conn.close();
  }
}

/** Runs `tasks`, at most `size` at a time. */
async function inBatches(tasks: readonly (() => Promise<unknown>)[], size: number): Promise<void> {
  for (let i = 0; i < tasks.length; i += size) {
    await Promise.all(tasks.slice(i, i + size).map((task) => task()));
  }
}

function observationOf(r: ReadRecord): SeenObservation | undefined {
  const proposalId = field(r.value, 'proposalId');
  const outcome = field(r.value, 'outcome');
  if (proposalId === undefined || outcome === undefined) return undefined;
  const stage = field(r.value, 'stage');
  const code = field(r.value, 'code');
  return {
    proposalId,
    outcome: outcome as SeenObservation['outcome'],
    ...(stage === undefined ? {} : { stage }),
    ...(code === undefined ? {} : { code }),
    at: r.timestamp,
  };
}

function commandOf(r: ReadRecord): SeenCommand | undefined {
  const inner = member(r.value, 'context');
  const commandId = field(r.value, 'commandId');
  const idempotencyKey = field(r.value, 'idempotencyKey');
  const tool = field(r.value, 'tool');
  const tenant = field(inner, 'tenant');
  const proposalId = field(inner, 'proposalId');
  if (
    commandId === undefined ||
    idempotencyKey === undefined ||
    tool === undefined ||
    tenant === undefined ||
    proposalId === undefined
  )
    return undefined;
  const confirmedBy = field(r.value, 'confirmedBy');
  return {
    commandId,
    idempotencyKey,
    tool,
    tenant,
    proposalId,
    ...(confirmedBy === undefined ? {} : { confirmedBy }),
    at: r.timestamp,
  };
}

/** A member of a decoded value, when it is an object. */
function member(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** A string member of a decoded value. */
function field(value: unknown, name: string): string | undefined {
  const v = member(value, name);
  return typeof v === 'string' ? v : undefined;
}

function pushText(list: string[], text: string | undefined): void {
  if (text !== undefined) list.push(text);
}

/**
 * A codec that hands a record's bytes over as text, undecoded: quarantine holds bytes the gate
 * could not decode, and the judge looks in them for the proposal they were.
 */
const RAW_CODEC: Codec = {
  register: () => Promise.reject(new Error('the raw reader registers nothing')),
  adopt: () => Promise.reject(new Error('the raw reader registers nothing')),
  encode: () => Promise.reject(new Error('the raw reader encodes nothing')),
  decode: (bytes) => Promise.resolve({ value: bytes?.toString('utf8') ?? '', schemaId: null }),
};

/**
 * The proposalId a quarantined record's bytes name, when they still do: the field of the JSON
 * object they hold (after a wire-format header, if any), else the first `"proposalId": "…"` in
 * them (JSON cut short, or with a duplicate key).
 */
export function proposalIdInBytes(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const start = text.indexOf('{');
  if (start === -1) return undefined;
  try {
    const parsed: unknown = JSON.parse(text.slice(start));
    const id = field(parsed, 'proposalId');
    if (id !== undefined) return id;
  } catch {
    // Not JSON as a whole: look for the field in the text.
  }
  const found = /"proposalId"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  if (found === undefined) return undefined;
  try {
    return JSON.parse(`"${found}"`) as string;
  } catch {
    return undefined;
  }
}
