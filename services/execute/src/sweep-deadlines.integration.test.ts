/**
 * The deadline sweeper against the real Redis, at a fixed clock, with the result handler beside
 * it: a sweep that settled a command and failed to publish still owes its terminal observation
 * when the tool's result comes within the sweep's lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateOutputs,
  generateOutputKeys,
  createLogger,
  createMetrics,
  connectRedis,
  createGateStore,
  Fault,
  gateTopics,
  MIN_RECORD_TTL_SECONDS,
  type Incoming,
  type Outgoing,
  type GateStore,
  type PendingCommand,
  type RedisConnection,
} from '@toolgate/platform';
import {
  createGate,
  createMessageChecker,
  deriveToolKey,
  IDEMPOTENCY_RETENTION_SECONDS,
  PROOF_HEADER,
  toolProof,
  MAX_TOOL_TIMEOUT_MS,
  TOOL_OUTCOME_UNKNOWN,
  type ToolResult,
} from '@toolgate/shared';
import deployment from '../../../test/support/deployment/index.js';
import { dropNamespace, testNamespace } from '../../../test/support/namespace.js';
import { pendingCommand } from '../../../test/support/pending-command.js';
import { redisClient, stackAddresses } from '../../../test/support/stack.js';
import { CommandsInFlight } from './commands-in-flight.js';
import { createResultHandler } from './handle-result.js';
import { LATE_RESULT_RETAIN_MS, sweepOnce } from './sweep-deadlines.js';

const ns = testNamespace('execute-sweep');
const keys = generateOutputKeys();
const outputs = createGateOutputs(gateTopics(`${ns.id}.`), keys, new Set(['acme', 'globex']));
const gate = createGate(deployment);
const DEADLINE = Date.parse('2030-01-01T00:00:00Z');
const LEASE = 5000;
let conn: RedisConnection;
let store: GateStore;

/** What the sweeper and the result handler use, at a fixed clock. */
function depsAt(nowMs: number) {
  return {
    idempotency: store.idempotency,
    pendingCommands: store.pendingCommands,
    outputs,
    gate,
    metrics: createMetrics('execute', { processMetrics: false }),
    logger: createLogger({ level: 'silent', stage: 'execute', instanceId: 'test' }),
    config: { commandKey: keys.commandKey, commandKeysAccepted: [] },
    now: () => new Date(nowMs),
  };
}

/**
 * A command issued as execute issues it: its claim and its pending command, due at DEADLINE; a
 * call of `tool` (default the fixture's, a destructive `refund`).
 */
async function issue(commandId: string, tool?: string): Promise<PendingCommand> {
  const fixture = pendingCommand(commandId, DEADLINE);
  const p = tool === undefined ? fixture : { ...fixture, tool };
  const claim = { digest: p.digest, state: 'claimed', token: p.token, commandId } as const;
  const issued = await store.pendingCommands.claimWithPending({
    tenant: p.tenant,
    key: p.idempotencyKey,
    record: claim,
    ttlSeconds: MIN_RECORD_TTL_SECONDS,
    pending: p,
    deadlineMs: DEADLINE,
  });
  expect(issued).toEqual({ claimed: true });
  return p;
}

/** One sweep at `nowMs` whose publishing succeeds (into `sent`) or fails. */
function sweepAt(nowMs: number, sent: Outgoing[][] | 'fail'): Promise<number> {
  return sweepOnce({
    deps: depsAt(nowMs),
    inFlight: new CommandsInFlight(),
    leaseMs: LEASE,
    produce: (outgoing) => {
      if (sent === 'fail') {
        return Promise.reject(new Fault('kafka_unavailable', 'commit failed'));
      }
      sent.push([...outgoing]);
      return Promise.resolve();
    },
  });
}

/** The tool's result for `p`, as read from the results topic at `offset`. */
function resultFor(p: PendingCommand, offset: string, code = 'deadline_exceeded'): Incoming {
  const value: ToolResult = {
    commandId: p.commandId,
    idempotencyKey: p.idempotencyKey,
    runId: p.runId,
    status: 'error',
    error: { code, message: 'gave up' },
    completedAt: new Date(DEADLINE + 500).toISOString(),
  };
  const raw = Buffer.from(JSON.stringify(value));
  // Proved as the tool's worker proves it: with the key of the command's tool.
  const proof = toolProof(deriveToolKey(keys.commandKey, p.tool), outputs.topics.results, raw);
  return {
    topic: outputs.topics.results,
    partition: 0,
    offset,
    key: p.runId,
    headers: { [PROOF_HEADER]: proof },
    value,
    raw,
    receivedAt: new Date(DEADLINE + 2000),
  };
}

/** What `outgoing` publishes: each record's topic kind and its outcome or audit kind. */
function published(outgoing: readonly Outgoing[]): string[] {
  return outgoing.map((o) => {
    const value = ('value' in o ? o.value : {}) as Record<string, unknown>;
    if (o.topic.startsWith(`${outputs.topics.observations}.`)) {
      return `observation ${String(value['outcome'])}`;
    }
    if (o.topic === outputs.topics.audit) return `audit ${String(value['kind'])}`;
    return o.topic;
  });
}

describe('the deadline sweeper and a result in its lease', () => {
  beforeAll(() => {
    conn = connectRedis({ url: stackAddresses().redisUrl, prefix: ns.redisPrefix });
    store = createGateStore(conn);
  });
  afterAll(async () => {
    await conn.close();
    const redis = redisClient();
    await dropNamespace(ns, { redis }).finally(() => redis.disconnect());
  });

  it('publishes the unknown outcome of a sweep that failed to publish, though the result came', async () => {
    const p = await issue('cmd-swept-late');
    const sweptAt = DEADLINE + 1000;
    await expect(sweepAt(sweptAt, 'fail')).rejects.toThrow('commit failed');
    // The sweep settled the record as unknown before it failed: the result only records itself.
    const handle = createResultHandler(
      depsAt(sweptAt + 500),
      createMessageChecker(),
      new CommandsInFlight(),
    );
    expect(published(await handle(resultFor(p, '7')))).toEqual(['audit late_result']);
    expect((await store.idempotency.getRecord(p.tenant, p.idempotencyKey))?.state).toBe('done');

    const sent: Outgoing[][] = [];
    expect(await sweepAt(sweptAt + LEASE - 1, sent)).toBe(0);
    expect(await sweepAt(sweptAt + LEASE, sent)).toBe(1);
    expect(sent.map(published)).toEqual([['observation unknown_outcome', 'audit unknown_outcome']]);
    const [observation] = sent[0] ?? [];
    expect(observation && 'value' in observation ? observation.value : undefined).toMatchObject({
      proposalId: p.proposalId,
      runId: p.runId,
    });
    // Finished: no sweep claims it again, and the late result stays on the record for a retry.
    expect(await sweepAt(sweptAt + 10 * LEASE, sent)).toBe(0);
    expect(sent).toHaveLength(1);
    expect((await store.idempotency.getRecord(p.tenant, p.idempotencyKey))?.state).toBe('done');
  });

  it('ends a read that its tool did not answer as retryable, not unknown, and records that', async () => {
    const p = await issue('cmd-read-silent', 'lookup');
    const sent: Outgoing[][] = [];
    await sweepAt(DEADLINE + 1000, sent);
    const mine = sent
      .flat()
      .map((o) => ('value' in o ? o.value : {}) as Record<string, unknown>)
      .filter((v) => v['proposalId'] === p.proposalId);
    expect(mine).toHaveLength(2);
    const [observation, audit] = mine;
    expect(observation).toMatchObject({
      outcome: 'rejected',
      disposition: 'retry',
      stage: 'execution',
      code: 'timeout_retryable',
    });
    expect(audit).toMatchObject({
      kind: 'rejected',
      code: 'timeout_retryable',
      outcome: 'rejected',
    });
    const record = await store.idempotency.getRecord(p.tenant, p.idempotencyKey);
    expect(record).toMatchObject({ state: 'unknown', outcome: { outcome: 'rejected' } });
  });

  it('publishes nothing more when the result settled a command that a sweep had claimed', async () => {
    const p = await issue('cmd-result-first');
    const claimedAt = DEADLINE + 1000;
    // A sweep claimed it and died before settling; the result then settles and publishes.
    const claimed = await store.pendingCommands.claimExpiredCommands(claimedAt, LEASE, 100);
    expect(claimed.claimed.map((c) => c.commandId)).toContain(p.commandId);
    const handle = createResultHandler(
      depsAt(claimedAt + 500),
      createMessageChecker(),
      new CommandsInFlight(),
    );
    expect(published(await handle(resultFor(p, '8')))).toEqual([
      'observation result',
      'audit result',
    ]);

    const sent: Outgoing[][] = [];
    await sweepAt(claimedAt + LEASE, sent);
    expect(sent).toEqual([]);
    expect(await sweepAt(claimedAt + 10 * LEASE, sent)).toBe(0);
  });

  it('keeps a command of the longest timeout the ceilings allow, and its record, past its deadline', async () => {
    const issuedAt = Date.now();
    const deadline = issuedAt + MAX_TOOL_TIMEOUT_MS;
    const p = pendingCommand('cmd-longest-timeout', deadline);
    const claim = {
      digest: p.digest,
      state: 'claimed',
      token: p.token,
      commandId: p.commandId,
    } as const;
    const retention = IDEMPOTENCY_RETENTION_SECONDS;
    const claimed = await store.pendingCommands.claimWithPending({
      tenant: p.tenant,
      key: p.idempotencyKey,
      record: claim,
      ttlSeconds: retention,
      pending: p,
      deadlineMs: deadline,
    });
    expect(claimed).toEqual({ claimed: true });
    const redis = redisClient();
    try {
      // Both must still be there when the sweeper ends the command, and for a late result after.
      const needed = deadline + LATE_RESULT_RETAIN_MS - issuedAt;
      expect(await redis.pttl(conn.keys.pendingCommand(p.commandId))).toBeGreaterThan(needed);
      const record = conn.keys.idempotency(p.tenant, p.idempotencyKey);
      expect(await redis.pttl(record)).toBeGreaterThan(needed);
    } finally {
      // Due long before the other tests' clock: out of their sweeps.
      await store.pendingCommands.finishExpiredCommand(p.commandId);
      redis.disconnect();
    }
  });

  it('ends every command of its batch as unknown when the record of one cannot be read', async () => {
    const good = await issue('cmd-beside-bad-record');
    const bad = await issue('cmd-bad-record');
    const redis = redisClient();
    try {
      const badRecord = conn.keys.idempotency(bad.tenant, bad.idempotencyKey);
      await redis.set(badRecord, 'not a record the gate wrote', 'EX', MIN_RECORD_TTL_SECONDS);
      const sweptAt = DEADLINE + 1000;
      const sent: Outgoing[][] = [];
      expect(await sweepAt(sweptAt, sent)).toBe(2);
      expect(sent).toHaveLength(1);
      const values = (sent[0] ?? []).map((o) =>
        'value' in o ? (o.value as Record<string, unknown>) : {},
      );
      const observations = values.filter((v) => 'outcome' in v && !('kind' in v));
      expect(observations.map((o) => o['proposalId']).sort()).toEqual(
        [good.proposalId, bad.proposalId].sort(),
      );
      expect(observations.map((o) => o['outcome'])).toEqual(['unknown_outcome', 'unknown_outcome']);
      const audits = values.filter((v) => v['kind'] === 'unknown_outcome');
      expect(audits.map((a) => a['proposalId']).sort()).toEqual(
        [good.proposalId, bad.proposalId].sort(),
      );
      const badAudit = audits.find((a) => a['proposalId'] === bad.proposalId);
      expect(badAudit?.['internalDetail']).toMatch(/idempotency record could not be settled/);
      expect((await store.idempotency.getRecord(good.tenant, good.idempotencyKey))?.state).toBe(
        'unknown',
      );
      // The record the gate did not write is left as it is, and no later sweep fails on it.
      expect(await redis.get(badRecord)).toBe('not a record the gate wrote');
      expect(await redis.zscore(conn.keys.deadlinesOf(bad.commandId), bad.commandId)).toBeNull();
      expect(await sweepAt(sweptAt + 10 * LEASE, sent)).toBe(0);
      expect(sent).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });

  it('leaves a command to the sweep when its result cannot settle an unreadable record', async () => {
    const p = await issue('cmd-result-bad-record');
    const redis = redisClient();
    try {
      const badRecord = conn.keys.idempotency(p.tenant, p.idempotencyKey);
      await redis.set(badRecord, 'not a record the gate wrote', 'EX', MIN_RECORD_TTL_SECONDS);
      // The result fails for good (the stage loop then audits it alone: a result names no call)…
      const handle = createResultHandler(
        depsAt(DEADLINE - 1000),
        createMessageChecker(),
        new CommandsInFlight(),
      );
      const fault = await handle(resultFor(p, '11')).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(fault).toBeInstanceOf(Fault);
      expect(fault).toMatchObject({ code: 'store_corrupt', retriable: false });
      // …so the call must still end on its own: the sweep ends it as unknown, once.
      const sent: Outgoing[][] = [];
      await sweepAt(DEADLINE + 1000, sent);
      const mine = sent
        .flat()
        .map((o) => ('value' in o ? (o.value as Record<string, unknown>) : {}))
        .filter((v) => v['proposalId'] === p.proposalId && !('kind' in v));
      expect(mine.map((o) => o['outcome'])).toEqual(['unknown_outcome']);
      await sweepAt(DEADLINE + 10 * LEASE, sent);
      expect(
        sent
          .flat()
          .filter(
            (o) =>
              'value' in o &&
              (o.value as Record<string, unknown>)['proposalId'] === p.proposalId &&
              !('kind' in (o.value as object)),
          ),
      ).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });

  it('ends the rest of its batch when one expired command cannot be read', async () => {
    const p = await issue('cmd-beside-unreadable');
    const bad = 'cmd-unreadable';
    const redis = redisClient();
    try {
      await redis.hset(conn.keys.pendingCommand(bad), 'json', '{"commandId":"other shape"}');
      await redis.zadd(conn.keys.deadlinesOf(bad), DEADLINE - 1, bad);
      const sweptAt = DEADLINE + 1000;
      const sent: Outgoing[][] = [];
      expect(await sweepAt(sweptAt, sent)).toBe(2);
      expect(sent.map(published)).toEqual([
        ['observation unknown_outcome', 'audit unknown_outcome'],
      ]);
      expect((await store.idempotency.getRecord(p.tenant, p.idempotencyKey))?.state).toBe(
        'unknown',
      );
      // The unreadable one left the index: later sweeps neither fail on it nor count it.
      expect(await redis.zscore(conn.keys.deadlinesOf(bad), bad)).toBeNull();
      expect(await sweepAt(sweptAt + 10 * LEASE, sent)).toBe(0);
    } finally {
      await redis.del(conn.keys.pendingCommand(bad));
      redis.disconnect();
    }
  });

  it('ends a command whose tool cannot tell whether it acted as unknown, before or after a sweep', async () => {
    const first = await issue('cmd-unknown-first');
    const handle = createResultHandler(
      depsAt(DEADLINE + 500),
      createMessageChecker(),
      new CommandsInFlight(),
    );
    const ended = await handle(resultFor(first, '9', TOOL_OUTCOME_UNKNOWN));
    expect(published(ended)).toEqual(['observation unknown_outcome', 'audit result']);
    const recorded = await store.idempotency.getRecord(first.tenant, first.idempotencyKey);
    expect(recorded?.outcome?.outcome).toBe('unknown_outcome');

    // After the sweep told the agent "unknown", the late result keeps that on the record.
    const swept = await issue('cmd-unknown-swept');
    const sent: Outgoing[][] = [];
    expect(await sweepAt(DEADLINE + 1000, sent)).toBeGreaterThanOrEqual(1);
    const late = createResultHandler(
      depsAt(DEADLINE + 2000),
      createMessageChecker(),
      new CommandsInFlight(),
    );
    const lateOut = await late(resultFor(swept, '10', TOOL_OUTCOME_UNKNOWN));
    expect(published(lateOut)).toEqual(['audit late_result']);
    const kept = await store.idempotency.getRecord(swept.tenant, swept.idempotencyKey);
    expect(kept?.outcome?.outcome).toBe('unknown_outcome');
  });
});
