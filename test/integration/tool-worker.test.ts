/**
 * The tool worker against the real stack: commands in the registry's wire format on namespaced
 * command topics, results read back read-committed from the namespaced results topic, the ledger
 * in Redis under the namespace's prefix. The restart test runs a worker in a child process that
 * kills itself between recording a result and committing it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createBus,
  createCodec,
  connectRedis,
  createLedger,
  Fault,
  SILENT_LOGGER,
  toWireFormat,
  type Ledger,
  type RedisConnection,
} from '@toolgate/platform';
import { idempotencyKey, MESSAGE_SCHEMAS, type Command } from '@toolgate/shared';
import {
  startToolWorker,
  toolOk,
  WORKER_ERRORS,
  type ToolHandlers,
  type ToolWorker,
} from '@toolgate/tool-worker';
import type { Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, within } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { recordingLogger } from '../support/recording-logger.js';
import { dropSubjects } from '../support/registry-cleanup.js';
import {
  identity,
  kafkaClient,
  redisAdminUrl,
  redisClient,
  stackAddresses,
} from '../support/stack.js';
import {
  commandFactory,
  provisionWorkers,
  startCommandHarness,
  workerEnv,
  type CommandHarness,
} from '../support/tool-worker-harness.js';

const ns = testNamespace('tool-worker');
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { schemaRegistryUrl, redisUrl } = stackAddresses();
const topic = (short: string) => `${ns.id}.toolgate.${short}`;
const command = commandFactory();

let kafka: Kafka;
let harness: CommandHarness;
let redis: Redis;
let conn: RedisConnection;
let ledger: Ledger;
let worker: ToolWorker;
const logger = recordingLogger();
/** Handler calls by command id, and the attempt each call was told. */
const calls = new Map<string, number[]>();
const sawAbort = new Set<string>();
/** Changes made by handlers, by command id: what a retry must not be told did not happen. */
const applied = new Set<string>();
/** How far the worker's clock runs ahead of the real one, in ms. */
let clockAheadMs = 0;

const count = (c: Command, attempt: number) =>
  calls.set(c.commandId, [...(calls.get(c.commandId) ?? []), attempt]);

const TOOLS: ToolHandlers = {
  echo: (c, { attempt }) => {
    count(c, attempt);
    return Promise.resolve(toolOk({ echo: c.args, attempt }));
  },
  slow: (c, { signal, attempt }) => {
    count(c, attempt);
    return new Promise((_, reject) => {
      signal.addEventListener('abort', () => {
        sawAbort.add(c.commandId);
        reject(signal.reason as Error);
      });
    });
  },
  stubborn: (c, { attempt }) => {
    count(c, attempt);
    return new Promise(() => undefined);
  },
  flaky: (c, { attempt }) => {
    count(c, attempt);
    if (attempt === 1) {
      return Promise.reject(new Fault('redis_unavailable', 'injected'));
    }
    return Promise.resolve(toolOk({ attempt }));
  },
  applies_then_faults: (c, { attempt }) => {
    count(c, attempt);
    if (attempt > 1) return Promise.resolve(toolOk({ applied: applied.has(c.commandId) }));
    applied.add(c.commandId);
    // The change is made; the reply is lost, and the redelivery comes after the deadline.
    clockAheadMs = Date.parse(c.deadline) - Date.now() + 60_000;
    return Promise.reject(new Fault('redis_unavailable', 'injected'));
  },
  faults_after_deadline: (c, { signal, attempt }) => {
    count(c, attempt);
    return new Promise((_, reject) => {
      signal.addEventListener('abort', () => {
        applied.add(c.commandId);
        reject(new Fault('redis_unavailable', 'injected'));
      });
    });
  },
  broken: (c, { attempt }) => {
    count(c, attempt);
    return Promise.reject(new Error('boom: db at 10.0.0.7\n    at handler (/srv/tool.js:1:1)'));
  },
};

beforeAll(async () => {
  await provisionWorkers(
    ns,
    [...Object.keys(TOOLS), 'restartable', 'guarded', 'fencing'],
    ['main', 'guarded', 'restart', 'fenced'],
  );
  kafka = kafkaClient(ns.id);
  redis = redisClient();
  conn = connectRedis({ url: redisUrl, prefix: ns.redisPrefix });
  ledger = createLedger(conn);
  worker = await startToolWorker({
    env: workerEnv(ns),
    name: 'main',
    tools: TOOLS,
    logger,
    abortGraceMs: 300,
    retry: { initialMs: 50, maxMs: 200 },
    now: () => new Date(Date.now() + clockAheadMs),
  });
  harness = await startCommandHarness(kafka, ns, [...Object.keys(TOOLS), 'restartable']);
  await eventually(60_000, 'the worker to join its group', () => Promise.resolve(worker.ready()));
});

afterAll(async () => {
  await harness.close();
  await worker.stop();
  await conn.close();
  await dropNamespace(ns, { kafka, redis });
  redis.disconnect();
  await dropSubjects(schemaRegistryUrl, ns.id);
});

const produce = (...commands: readonly Command[]) => harness.produce(...commands);
const resultsOf = (commandId: string, n?: number) => harness.resultsOf(commandId, n);

describe('startToolWorker: dedupe on the idempotency key', () => {
  it('runs a command produced twice once, and publishes the recorded result for the duplicate', async () => {
    const c = command('echo');
    await produce(c, c);
    const [first, second] = await resultsOf(c.commandId, 2);
    expect(calls.get(c.commandId)).toEqual([1]);
    expect(first).toEqual({
      commandId: c.commandId,
      idempotencyKey: c.idempotencyKey,
      runId: c.context.runId,
      status: 'ok',
      output: { echo: c.args, attempt: 1 },
      completedAt: expect.any(String) as unknown,
    });
    expect(second).toEqual(first);
    const published = harness.results.filter((r) => r.value.commandId === c.commandId);
    expect(published.every((r) => r.wire && r.key === c.context.runId)).toBe(true);
  });

  it('lets a caller look the outcome up by tenant and key, and by no other tenant', async () => {
    const c = command('echo');
    await produce(c);
    const [result] = await resultsOf(c.commandId);
    expect(await worker.outcome('acme', c.idempotencyKey)).toEqual({
      state: 'done',
      commandId: c.commandId,
      tool: 'echo',
      claimedAt: expect.any(String) as unknown,
      attempts: 1,
      result,
    });
    expect(await worker.outcome('globex', c.idempotencyKey)).toBeUndefined();
    expect(await worker.outcome('acme', 'key-never-used')).toBeUndefined();
  });

  it('replays the outcome to another command with the same key and content, under its own ids', async () => {
    const c = command('echo');
    const again = {
      ...c,
      commandId: `${c.commandId}-again`,
      context: { ...c.context, runId: 'run-again' },
    };
    await produce(c, again);
    const [original] = await resultsOf(c.commandId);
    const [replayed] = await resultsOf(again.commandId);
    expect(calls.get(again.commandId)).toBeUndefined();
    expect(replayed).toEqual({ ...original, commandId: again.commandId, runId: 'run-again' });
  });

  it('runs the same ids of two users of a tenant as two commands, each in its own ledger entry', async () => {
    // As execute issues them: the key names the user, so two users' calls never share an entry.
    const forUser = (subject: string): Command => {
      const base = command('echo');
      const ids = { tenant: 'acme', subject, requestId: 'req-shared', callId: '1' };
      const key = idempotencyKey(ids);
      return {
        ...base,
        commandId: `cmd_${key.slice(0, 32)}`,
        idempotencyKey: key,
        args: { n: 0 },
        context: { ...base.context, subject, requestId: ids.requestId, callId: ids.callId },
      };
    };
    const [alices, daves] = [forUser('alice'), forUser('dave')];
    expect(daves.idempotencyKey).not.toBe(alices.idempotencyKey);
    await produce(alices, daves);
    const [a] = await resultsOf(alices.commandId);
    const [d] = await resultsOf(daves.commandId);
    expect(calls.get(alices.commandId)).toEqual([1]);
    expect(calls.get(daves.commandId)).toEqual([1]);
    expect(a).toMatchObject({ status: 'ok', idempotencyKey: alices.idempotencyKey });
    expect(d).toMatchObject({ status: 'ok', idempotencyKey: daves.idempotencyKey });
    const entry = (c: Command) => ledger.ledgerGet('acme', c.idempotencyKey);
    expect(await entry(alices)).toMatchObject({ token: alices.commandId, state: 'done' });
    expect(await entry(daves)).toMatchObject({ token: daves.commandId, state: 'done' });
  });

  it('refuses a command that reuses a key for other arguments, without running it', async () => {
    const c = command('echo');
    const other = { ...c, commandId: `${c.commandId}-other`, args: { n: -1 } };
    await produce(c, other);
    await resultsOf(c.commandId);
    const [refused] = await resultsOf(other.commandId);
    expect(calls.get(other.commandId)).toBeUndefined();
    expect(refused).toMatchObject({
      status: 'error',
      error: { code: 'idempotency_conflict', message: WORKER_ERRORS.idempotency_conflict },
    });
  });
});

describe('startToolWorker: deadlines', () => {
  it('does not run a command whose deadline has passed, and says so', async () => {
    const c = command('echo', { deadline: new Date(Date.now() - 1_000).toISOString() });
    await produce(c);
    const [result] = await resultsOf(c.commandId);
    expect(calls.get(c.commandId)).toBeUndefined();
    expect(result).toMatchObject({ status: 'error', error: { code: 'deadline_exceeded' } });
    expect(await worker.outcome('acme', c.idempotencyKey)).toMatchObject({ state: 'done', result });
  });

  it('aborts a handler that runs past the deadline and reports it', async () => {
    const c = command('slow', { deadline: new Date(Date.now() + 2_000).toISOString() });
    await produce(c);
    const [result] = await resultsOf(c.commandId);
    expect(sawAbort.has(c.commandId)).toBe(true);
    expect(result).toMatchObject({ status: 'error', error: { code: 'deadline_exceeded' } });
    expect(Date.parse(result?.completedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(c.deadline));
  });

  it('abandons a handler that ignores the abort after the grace, and says its effect is unknown', async () => {
    const c = command('stubborn', { deadline: new Date(Date.now() + 2_000).toISOString() });
    await produce(c);
    const [result] = await resultsOf(c.commandId);
    expect(result).toMatchObject({
      status: 'error',
      error: { code: 'outcome_unknown', message: WORKER_ERRORS.outcome_unknown },
    });
    const warned = logger.lines.filter((l) => l.fields['commandId'] === c.commandId);
    expect(warned.map((l) => l.message)).toContain(
      'the handler ignored the deadline and was abandoned; its effect is unknown',
    );
  });

  it('says the effect is unknown for a resumed command read past its deadline, not that it was not done', async () => {
    const c = command('applies_then_faults', {
      deadline: new Date(Date.now() + 30_000).toISOString(),
    });
    try {
      await produce(c);
      const [result] = await resultsOf(c.commandId);
      expect(applied.has(c.commandId)).toBe(true);
      expect(calls.get(c.commandId)).toEqual([1]);
      expect(result).toMatchObject({
        status: 'error',
        error: { code: 'outcome_unknown', message: WORKER_ERRORS.outcome_unknown },
      });
      expect(await worker.outcome('acme', c.idempotencyKey)).toMatchObject({
        state: 'done',
        attempts: 2,
        result,
      });
    } finally {
      clockAheadMs = 0;
    }
  });

  it('says the effect is unknown for a handler that faults after the deadline fired', async () => {
    const c = command('faults_after_deadline', {
      deadline: new Date(Date.now() + 2_000).toISOString(),
    });
    await produce(c);
    const [result] = await resultsOf(c.commandId);
    expect(applied.has(c.commandId)).toBe(true);
    expect(result).toMatchObject({ status: 'error', error: { code: 'outcome_unknown' } });
  });
});

describe('startToolWorker: commands execute did not issue', () => {
  it("runs no handler for a command without a proof, with another tool's, or altered after it was proved", async () => {
    const dropsBefore = await forgeriesCounted();
    const bare = command('echo');
    const otherTools = command('echo');
    const altered = command('echo', { args: { n: 'changed after the proof' } });
    const otherTenant = command('echo', {
      context: { ...command('echo').context, tenant: 'globex' },
    });
    const bytesOf = (c: Command) => harness.encode(c);
    await harness.produceRaw('echo', await bytesOf(bare));
    const forOther = await bytesOf(otherTools);
    await harness.produceRaw('echo', forOther, harness.proofFor('echo', forOther, 'slow'));
    // A genuine proof, over bytes that then said something else.
    const original = await bytesOf({ ...altered, args: { n: 1 } });
    await harness.produceRaw('echo', await bytesOf(altered), harness.proofFor('echo', original));
    const asAcme = await bytesOf({
      ...otherTenant,
      context: { ...otherTenant.context, tenant: 'acme' },
    });
    await harness.produceRaw('echo', await bytesOf(otherTenant), harness.proofFor('echo', asAcme));
    // Proved, but past its deadline: answered without running.
    const expired = command('echo', { deadline: new Date(Date.now() - 1_000).toISOString() });
    await produce(expired);
    const sentinel = command('echo');
    await produce(sentinel);
    await resultsOf(sentinel.commandId);

    expect(await resultsOf(expired.commandId)).toMatchObject([
      { status: 'error', error: { code: 'deadline_exceeded' } },
    ]);
    for (const c of [bare, otherTools, altered, otherTenant, expired]) {
      expect(calls.get(c.commandId), c.commandId).toBeUndefined();
    }
    // The dropped ones were never read far enough to touch the ledger.
    for (const c of [bare, otherTools, altered, otherTenant]) {
      for (const tenant of ['acme', 'globex']) {
        expect(await worker.outcome(tenant, c.idempotencyKey), c.commandId).toBeUndefined();
      }
    }
    for (const c of [bare, otherTools, altered, otherTenant]) {
      expect(harness.results.filter((r) => r.value.commandId === c.commandId)).toEqual([]);
    }
    expect(await forgeriesCounted()).toEqual({
      no_proof: dropsBefore.no_proof + 1,
      bad_proof: dropsBefore.bad_proof + 3,
    });
    const dropped = logger.lines.filter((l) => l.message.startsWith('dropped a command'));
    expect(dropped.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(dropped)).not.toContain('changed after the proof');
  });
});

/** The worker's count of dropped commands, by reason, from its metrics. */
async function forgeriesCounted(): Promise<{ no_proof: number; bad_proof: number }> {
  const text = await worker.metrics.render();
  const count = (reason: string) =>
    Number(
      new RegExp(`toolgate_refused_forgeries_total\\{[^}]*reason="${reason}"[^}]*\\} (\\d+)`).exec(
        text,
      )?.[1] ?? 0,
    );
  return { no_proof: count('no_proof'), bad_proof: count('bad_proof') };
}

describe('startToolWorker: failures', () => {
  it('reports a handler that throws as handler_error, with no stack and no detail', async () => {
    const c = command('broken');
    await produce(c);
    const [result] = await resultsOf(c.commandId);
    expect(result).toMatchObject({
      status: 'error',
      error: { code: 'handler_error', message: WORKER_ERRORS.handler_error },
    });
    expect(JSON.stringify(result)).not.toMatch(/10\.0\.0\.7|tool\.js/);
  });

  it('delivers a command again after a retriable fault, and the redelivery resumes it', async () => {
    const c = command('flaky');
    await produce(c);
    const [result] = await resultsOf(c.commandId);
    expect(calls.get(c.commandId)).toEqual([1, 2]);
    expect(result).toMatchObject({ status: 'ok', output: { attempt: 2 } });
    expect(await worker.outcome('acme', c.idempotencyKey)).toMatchObject({ attempts: 2 });
  });

  it('answers a command that breaks the schema with invalid_command, and skips one without ids', async () => {
    const registered = await harness.codec.register(
      `${topic('commands.echo')}-value`,
      MESSAGE_SCHEMAS.commands,
    );
    const wire = (value: unknown) => toWireFormat(registered, Buffer.from(JSON.stringify(value)));
    const { deadline: _deadline, ...noDeadline } = command('echo');
    const noIds = { ...command('echo'), commandId: '' };
    const otherTool = command('slow');
    // Proved as execute proves what it writes: only such a record is read at all.
    const proved = (bytes: Buffer) =>
      harness.produceRaw('echo', bytes, harness.proofFor('echo', bytes));
    await proved(wire(noDeadline));
    const noIdsOffset = await proved(wire(noIds));
    await proved(wire(otherTool));
    await proved(Buffer.from('not a command'));
    const sentinel = command('echo');
    await produce(sentinel);
    await resultsOf(sentinel.commandId);

    const [invalid] = await resultsOf(noDeadline.commandId);
    expect(invalid).toMatchObject({ status: 'error', error: { code: 'invalid_command' } });
    const [mismatch] = await resultsOf(otherTool.commandId);
    expect(mismatch).toMatchObject({ status: 'error', error: { code: 'invalid_command' } });
    expect(harness.results.filter((r) => r.value.idempotencyKey === noIds.idempotencyKey)).toEqual(
      [],
    );
    for (const id of [noDeadline.commandId, noIds.commandId, otherTool.commandId]) {
      expect(calls.get(id), id).toBeUndefined();
    }
    // A record may be handled again after a failed transaction: compare what was logged, not how often.
    const skipped = logger.lines.filter((l) => l.message.startsWith('skipping'));
    expect(new Set(skipped.map((l) => `${String(l.fields['offset'])}: ${l.message}`))).toEqual(
      new Set([
        `${noIdsOffset}: skipping an invalid command without ids to answer`,
        `${noIdsOffset + 2}: skipping an undecodable command record`,
      ]),
    );
  });
});

describe('startToolWorker: the ledger', () => {
  it('runs nothing while the ledger cannot be reached, and the command once when it can', async () => {
    const { kafkaBrokers } = stackAddresses();
    const bus = createBus({
      security: identity(),
      brokers: kafkaBrokers,
      clientId: `${ns.id}-guarded`,
      logger: SILENT_LOGGER,
    });
    const codec = createCodec({
      registryUrl: schemaRegistryUrl,
      logger: SILENT_LOGGER,
      compatibility: 'NONE',
    });
    const realConn = connectRedis({ url: redisUrl, prefix: ns.redisPrefix });
    const real = createLedger(realConn);
    let outages = 3;
    const guardedLedger: Ledger = {
      ...real,
      ledgerClaim: (...args) => {
        if (outages <= 0) return real.ledgerClaim(...args);
        outages -= 1;
        return Promise.reject(new Fault('redis_unavailable', 'injected outage'));
      },
    };
    const ran: number[] = [];
    const guarded = await startToolWorker({
      env: workerEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-guarded` }),
      tools: {
        guarded: (_c, { attempt }) => {
          ran.push(attempt);
          return Promise.resolve(toolOk());
        },
      },
      connections: { bus, codec, ledger: guardedLedger },
      logger: SILENT_LOGGER,
      retry: { initialMs: 20, maxMs: 50 },
    });
    try {
      await eventually(60_000, 'the guarded worker to join', () =>
        Promise.resolve(guarded.ready()),
      );
      await harness.codec.register(`${topic('commands.guarded')}-value`, MESSAGE_SCHEMAS.commands);
      const c = command('guarded');
      await produce(c);
      expect(await resultsOf(c.commandId)).toMatchObject([{ status: 'ok' }]);
      expect(outages).toBe(0);
      expect(ran).toEqual([1]);
    } finally {
      await guarded.stop();
      await realConn.close();
      await bus.close();
    }
  });

  it('answers internal_error for a key whose ledger entry it cannot read, and moves on', async () => {
    const c = command('echo');
    await redis.set(conn.keys.ledger('acme', c.idempotencyKey), 'not a ledger entry');
    const next = command('echo');
    await produce(c, next);
    expect(await resultsOf(c.commandId)).toMatchObject([
      { status: 'error', error: { code: 'internal_error', message: WORKER_ERRORS.internal_error } },
    ]);
    expect(await resultsOf(next.commandId)).toMatchObject([{ status: 'ok' }]);
    expect(calls.get(c.commandId)).toBeUndefined();
  });
});

describe('startToolWorker: a restart before the offset was committed', () => {
  it('runs the handler once, and the restarted worker publishes the recorded result', async () => {
    const tool = 'restartable';
    const instance = `${ns.id}-restart`;
    const callsKey = ns.key('restart-calls');
    const env = workerEnv(ns, { TOOLGATE_INSTANCE_ID: instance, TOOLGATE_WORKER_NAME: 'restart' });
    const c = command(tool);

    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/tool-worker-child.ts'],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          ...env,
          CHILD_TOOL: tool,
          CHILD_CALLS_KEY: callsKey,
          CHILD_COUNTER_REDIS_URL: redisAdminUrl(),
          TOOLGATE_TEST_KILL_AT_COMMIT: '1',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child.once('exit', (code, sig) => resolve(sig ?? code)),
    );
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) resolve();
      });
      void exited.then((how) => reject(new Error(`the child worker exited early (${how})`)));
    });
    // The child creates the command topic; the command goes out once it consumes.
    await within(60_000, 'the child worker to join its group', ready);
    await produce(c);
    expect(await within(60_000, 'the child worker to kill itself at commit', exited)).toBe(
      'SIGKILL',
    );
    expect(await redis.get(callsKey)).toBe('1');
    const recorded = (await ledger.ledgerGet('acme', c.idempotencyKey))?.result;
    expect(recorded).toMatchObject({
      commandId: c.commandId,
      status: 'ok',
      output: { ran: c.commandId },
    });
    expect(harness.results.filter((r) => r.value.commandId === c.commandId)).toEqual([]);

    const rerun: string[] = [];
    const restarted = await startToolWorker({
      env,
      tools: {
        [tool]: (cmd) => {
          rerun.push(cmd.commandId);
          return Promise.resolve(toolOk({ ran: cmd.commandId }));
        },
      },
      logger: SILENT_LOGGER,
      sessionTimeoutMs: 6_000,
    });
    try {
      // Same run, same partition: the sentinel's result comes after any result of the first.
      const sentinel = command(tool, { context: { ...c.context, callId: 'sentinel' } });
      await produce(sentinel);
      await resultsOf(sentinel.commandId);
      expect(await resultsOf(c.commandId)).toEqual([recorded]);
      expect(rerun).toEqual([sentinel.commandId]);
      expect(await redis.get(callsKey)).toBe('1');
    } finally {
      await restarted.stop();
    }
  });
});

describe('startToolWorker: a worker that cannot run as configured', () => {
  it('refuses an option out of its range before it connects to anything', async () => {
    const started = startToolWorker({
      env: { ...workerEnv(ns), TOOLGATE_KAFKA_BROKERS: '127.0.0.1:1' },
      tools: TOOLS,
      maxOutputBytes: 1_000_000,
      ledgerTtlSeconds: 60,
    });
    await expect(started).rejects.toThrow(
      new RangeError(
        'tool worker options: maxOutputBytes must be an integer, 1 to 524288 (got 1000000); ' +
          'ledgerTtlSeconds must be an integer, at least 86400 (got 60)',
      ),
    );
  });
});

describe('startToolWorker: a worker that stops on its own', () => {
  it('tells onCrash once, and is no longer ready, when another instance fences its producer', async () => {
    const crashes: Error[] = [];
    const instanceId = `${ns.id}-fenced`;
    const fenced = await startToolWorker({
      env: workerEnv(ns, { TOOLGATE_INSTANCE_ID: instanceId }),
      name: 'fenced',
      tools: { fencing: () => Promise.resolve(toolOk({})) },
      logger: SILENT_LOGGER,
      onCrash: (error) => crashes.push(error),
    });
    const bus = createBus({
      security: identity(),
      brokers: [...stackAddresses().kafkaBrokers],
      clientId: `${ns.id}-usurper`,
      logger: SILENT_LOGGER,
    });
    // A second instance with the same name and instance id, as a restarted pod with the same
    // name: the first one's next transaction finds its producer fenced.
    const usurper = bus.producer({ transactionalId: `${fenced.groupId}.${instanceId}` });
    try {
      await eventually(60_000, 'the worker to join its group', () =>
        Promise.resolve(fenced.ready()),
      );
      await usurper.connect();
      await harness.produceRaw('fencing', Buffer.from('{"not":"a command"}'));
      await eventually(30_000, 'onCrash to be told', () => Promise.resolve(crashes.length > 0));
    } finally {
      await usurper.disconnect();
      await fenced.stop();
      await bus.close();
    }
    expect(crashes).toEqual([expect.objectContaining({ code: 'kafka_fenced' })]);
    expect(fenced.ready()).toBe(false);
  });
});
