/**
 * The execute stage while Redis does not answer. The outage is simulated by freezing a Redis of
 * this test's own with SIGSTOP and thawing it with SIGCONT: connections stay open and nothing
 * answers (the harder case for a client: timeouts, not refusals), and no data is lost, so the
 * test can demand that every proposal completes exactly once. Killing Redis would also empty it
 * (`--save ''`), and a claim written before the kill would be forgotten: a duplicate command after
 * the restart would then be the test's doing, not the stage's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClearedEnvelope } from '@toolgate/shared';
import deployment, { USERS } from '../../../test/support/deployment/index.js';
import { openaiChat } from '../../../test/support/proposals.js';
import { eventually } from '../../../test/support/deadline.js';
import {
  type ClearedFeeder,
  createClearedFeeder,
  closeHarnessWithWorker,
  everythingUnder,
  harnessTarget,
  keyOf,
  startHarnessWithWorker,
  type ToolWorker,
} from '../../../test/support/execute-fixtures.js';
import type { GateHarness } from '../../../test/support/gate-harness.js';
import * as execute from './service.js';

let redis: ChildProcess;
let port: number;
let h: GateHarness;
let worker: ToolWorker;
let feeder: ClearedFeeder;

/** A TCP port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}

beforeAll(async () => {
  port = await freePort();
  redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  await eventually(10_000, `redis-server on port ${port}`, () =>
    probe.ping().then(
      () => true,
      () => false,
    ),
  );
  probe.disconnect();
  ({ h, worker } = await startHarnessWithWorker({
    label: 'execute-redis',
    modules: [execute],
    env: { TOOLGATE_REDIS_URL: `redis://127.0.0.1:${port}` },
  }));
  feeder = createClearedFeeder(harnessTarget(h), deployment);
});

afterAll(async () => {
  redis?.kill('SIGCONT');
  await closeHarnessWithWorker(h, worker);
  redis?.kill('SIGKILL');
});

/** A counter of the execute stage's /metrics, summed over the series whose labels include `labels`. */
async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${h.gate.ports['execute']}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

function lookup(proposalId: string): ReturnType<typeof openaiChat> {
  return openaiChat({ proposalId, runId: `run-${proposalId}` }, 'lookup', { query: proposalId });
}

async function resultOf(proposalId: string): Promise<void> {
  await h.waitFor(
    'observations',
    `the result of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId && r.value['outcome'] === 'result',
    1,
    60_000,
  );
}

describe('the execute stage while Redis does not answer', () => {
  it('publishes no command while Redis is frozen, and completes every proposal once it answers again', async () => {
    const alice = USERS.alice;
    const before = await feeder.feed(alice, lookup('p-before'));
    await resultOf('p-before');

    const cleared = `topic="${h.topic('cleared')}"`;
    const readBefore = await metric('toolgate_messages_in_total', cleared);
    const faultsBefore = await metric('toolgate_faults_total', 'code="redis_unavailable"');
    const commandsBefore = worker.delivered.length;
    redis.kill('SIGSTOP');

    const during: ClearedEnvelope[] = [];
    for (const id of ['p-during-1', 'p-during-2', 'p-during-3']) {
      during.push(await feeder.feed(alice, lookup(id)));
    }
    // The stage read each of them, failed on Redis, paused, and read them again: six reads at least.
    await eventually(
      60_000,
      'the execute stage to read the three envelopes twice each, faulting on Redis',
      async () =>
        (await metric('toolgate_messages_in_total', cleared)) >= readBefore + 6 &&
        (await metric('toolgate_faults_total', 'code="redis_unavailable"')) >= faultsBefore + 6,
      100,
    );
    expect(worker.delivered.length).toBe(commandsBefore);
    for (const envelope of during) {
      expect(h.seen(`commands.lookup`).filter((r) => r.key === keyOf(envelope))).toEqual([]);
      expect(
        h.seen('observations').filter((r) => r.value['proposalId'] === envelope.proposalId),
      ).toEqual([]);
    }

    redis.kill('SIGCONT');
    for (const envelope of during) await resultOf(envelope.proposalId);
    for (const envelope of [before, ...during]) {
      expect(await everythingUnder(h, 'commands.lookup', keyOf(envelope))).toHaveLength(1);
      expect(await everythingUnder(h, 'observations', envelope.runId)).toHaveLength(1);
    }
    expect(worker.delivered.map((c) => c.context.proposalId).sort()).toEqual([
      'p-before',
      'p-during-1',
      'p-during-2',
      'p-during-3',
    ]);
  }, 180_000);
});
