/**
 * `npm start -- --once` as a user runs it, in a namespace of its own: the demo starts the gate and
 * the tool worker as child processes, plays its scripted workload, and exits 0 only when every
 * outcome was the expected one and every rung refused something. The stack is already up here
 * (the global setup), so the test runs the demo's entry point without `stack:up`.
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { STAGES } from '@toolgate/shared';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { dropSubjects } from '../support/registry-cleanup.js';
import { kafkaClient, redisClient, stackAddresses } from '../support/stack.js';

const ns = testNamespace('demo');

afterAll(async () => {
  const redis = redisClient();
  try {
    await dropNamespace(ns, { kafka: kafkaClient('demo-test-cleanup'), redis });
    await dropSubjects(stackAddresses().schemaRegistryUrl, `${ns.id}.`);
  } finally {
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

/** The rows of the closing table as [stage, code, kind, count]. */
function tableRows(out: string): string[][] {
  const lines = out.split('\n');
  const header = lines.findIndex((l) => /^stage\s+code\s+kind\s+count$/.test(l));
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (line.startsWith('---')) break;
    rows.push(line.trim().split(/\s+/));
  }
  return header < 0 ? [] : rows;
}

describe('npm start -- --once', () => {
  it('runs the scripted workload to its table, every rung refusing, and exits 0', async () => {
    const stack = stackAddresses();
    const { code, out } = await runDemoOnce({
      TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
      TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
      TOOLGATE_REDIS_URL: stack.redisUrl,
      TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
      TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
      TOOLGATE_REDIS_PREFIX: ns.redisPrefix,
      TOOLGATE_HTTP_PORT: String(randomInt(20_000, 40_000)),
      TOOLGATE_LOG_LEVEL: 'warn',
    });
    expect(out).toContain('all 43 proposals ended as the script expected');
    expect(code, out).toBe(0);
    const rows = tableRows(out);
    const refusedAt = new Set(
      rows.filter(([, c, kind]) => c !== '-' && kind !== 'pending_confirmation').map(([s]) => s),
    );
    expect([...STAGES].filter((s) => !refusedAt.has(s))).toEqual([]);
    expect(rows).toContainEqual(['idempotency', '-', 'replay', '1']);
    expect(rows).toContainEqual(['confirmation', 'expired', 'expired', '1']);
  }, 180_000);
});
