/**
 * `npm start -- --once` as a user runs it, in a namespace of its own: the demo provisions the
 * namespace as the stack's admin (topics, ACLs, a worker Redis user), starts each stage and the
 * tool worker as a child process connecting as its own principal, plays its scripted workload,
 * tries to walk around the gate, reads back the alerts analytics raised, and exits 0 only when
 * every outcome was the expected one, every rung refused something, every walk-around attempt was
 * stopped, and analytics alerted on the runaway run and the forgeries. The stack is already up here
 * (the global setup), so the test runs the demo's entry point without `stack:up`; it drops what
 * the demo provisioned afterwards.
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createBus, SILENT_LOGGER } from '@toolgate/platform';
import { RUNGS } from '@toolgate/shared';
import {
  namespaceBindings,
  namespaceWorkerUser,
} from '../../examples/billing/demo/namespace-setup.js';
import { withEveryRedisNode } from '../../infra/redis.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { dropSubjects } from '../support/registry-cleanup.js';
import {
  identity,
  kafkaClient,
  redisAdminUrl,
  redisClient,
  stackAddresses,
} from '../support/stack.js';

const ns = testNamespace('demo');

afterAll(async () => {
  const redis = redisClient();
  const admin = createBus({
    brokers: [...stackAddresses().kafkaBrokers],
    clientId: `${ns.id}-cleanup`,
    logger: SILENT_LOGGER,
    security: identity(),
  });
  try {
    await admin.deleteAcls(namespaceBindings(`${ns.id}.`, `${ns.id}.`));
    // Each node of a cluster keeps its own users.
    await withEveryRedisNode(redisAdminUrl(), (node) =>
      node.call('ACL', 'DELUSER', namespaceWorkerUser(ns.redisPrefix)),
    );
    await dropNamespace(ns, { kafka: kafkaClient('demo-test-cleanup'), redis });
    await dropSubjects(stackAddresses().schemaRegistryUrl, `${ns.id}.`);
  } finally {
    await admin.close();
    redis.disconnect();
  }
});

/** Runs the demo with `--once`; resolves with its exit code and output. */
function runDemoOnce(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--no-turbo-inline-js-wasm-calls',
        '--import',
        'tsx',
        'examples/billing/demo/main.ts',
        '--once',
      ],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out }));
  });
}

/** The rows of the table whose header matches `header`, up to the first rule or blank line. */
function rowsUnder(out: string, header: RegExp): string[] {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => header.test(l));
  if (at < 0) return [];
  const rows: string[] = [];
  for (const line of lines.slice(at + 2)) {
    if (line.startsWith('---') || line.trim() === '') break;
    rows.push(line);
  }
  return rows;
}

/** The rows of the closing table as [stage, code, kind, count]. */
function tableRows(out: string): string[][] {
  return rowsUnder(out, /^stage\s+code\s+kind\s+count$/).map((l) => l.trim().split(/\s+/));
}

/** The walk-around rows, by number. */
function walkAroundRows(out: string): Map<string, string> {
  const rows = rowsUnder(out, /^#\s+attempt\s+as\s+stopped by$/);
  return new Map(rows.map((row) => [row.split(/\s+/, 1)[0] ?? '', row]));
}

const topic = (name: string) => `${ns.id}\\.toolgate\\.${name.replaceAll('.', '\\.')}`;
const refused = 'broker: TOPIC_AUTHORIZATION_FAILED';
const untouched = 'no ledger entry, no result, payment unchanged';

/** Each walk-around row as it must read: what was tried, as whom, and what stopped it. */
const WALK_AROUND: ReadonlyMap<string, RegExp> = new Map([
  [
    '1',
    new RegExp(
      `^1\\s+produce a command to ${topic('commands.refund_payment')}\\s+agent-acme\\s+${refused}$`,
    ),
  ],
  ['2a', new RegExp(`^2a\\s+read ${topic('observations.globex')}\\s+agent-acme\\s+${refused}$`)],
  ['2b', new RegExp(`^2b\\s+read ${topic('proposals')} .*\\s+agent-acme\\s+${refused}$`)],
  ['3a', new RegExp(`^3a\\s+write ${topic('cleared')}\\s+worker-billing\\s+${refused}$`)],
  ['3b', new RegExp(`^3b\\s+write ${topic('observations.acme')}\\s+worker-billing\\s+${refused}$`)],
  ['4a', new RegExp(`^4a\\s.*\\s+admin\\s+worker dropped it \\(no_proof\\): ${untouched}$`)],
  [
    '4b',
    new RegExp(`^4b\\s.*search's key\\s+admin\\s+worker dropped it \\(bad_proof\\): ${untouched}$`),
  ],
  [
    '4c',
    new RegExp(
      `^4c\\s.*tenant then changed\\s+admin\\s+worker dropped it \\(bad_proof\\): ${untouched}$`,
    ),
  ],
  ['5', /^5\s.*\s+admin\s+execute audited forged_result; the call ended with the tool's own 42$/],
  [
    '6',
    /^6\s.*\s+admin\s+agent client dropped it \(count \d+ -> \d+\); the call ended with the tool's own 42$/,
  ],
  [
    '7',
    /^7\s.*\s+admin \+ integrity key\s+execute audited authentication\/stale_envelope; no command issued$/,
  ],
  [
    '8',
    new RegExp(
      `^8\\s+write ${ns.id}:conf:\\{\\w+\\}:\\S+\\s+worker\\.\\S+ \\(Redis\\)\\s+Redis: NOPERM$`,
    ),
  ],
]);

describe('npm start -- --once', () => {
  it('runs the workload to its table, every rung refusing, stops every walk-around, exits 0', async () => {
    const stack = stackAddresses();
    const { code, out } = await runDemoOnce({
      // Every component is given by its address, so the size of the stack's own Kafka is not the
      // demo's to check (the stack refuses a node count beside TOOLGATE_KAFKA_BROKERS).
      TOOLGATE_STACK_KAFKA_NODES: '',
      TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
      TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
      TOOLGATE_REDIS_URL: stack.redisUrl,
      TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
      TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
      TOOLGATE_REDIS_PREFIX: ns.redisPrefix,
      TOOLGATE_HTTP_PORT: String(randomInt(20_000, 40_000)),
      TOOLGATE_LOG_LEVEL: 'warn',
      // Neither a secret of the caller's nor the example's published one: the demo makes its own.
      TOOLGATE_SESSION_SECRET: '',
      TOOLGATE_DEMO_SESSIONS: '',
    });
    expect(out).toMatch(/sessions: a random HS256 secret generated for this demo run/);
    expect(out).toContain('all 43 proposals ended as the script expected');
    expect(out).toContain('all 12 walk-around attempts were stopped');
    expect(out).toContain('analytics alerted on the runaway run and on the forgeries');
    expect(code, out).toBe(0);
    const rows = tableRows(out);
    const refusedAt = new Set(
      rows.filter(([, c, kind]) => c !== '-' && kind !== 'pending_confirmation').map(([s]) => s),
    );
    expect([...RUNGS].filter((s) => !refusedAt.has(s))).toEqual([]);
    expect(rows).toContainEqual(['idempotency', '-', 'replay', '1']);
    expect(rows).toContainEqual(['confirmation', 'expired', 'expired', '1']);
    const walked = walkAroundRows(out);
    expect([...walked.keys()]).toEqual([...WALK_AROUND.keys()]);
    for (const [no, row] of WALK_AROUND) expect(walked.get(no), out).toMatch(row);
  }, 300_000);
});
