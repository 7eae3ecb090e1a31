/**
 * The analytics process as `toolgate start analytics` runs it: its own variables only (no
 * integrity key, no Redis URL), as `toolgate-analytics`, ready once it holds the audit partitions,
 * serving /readyz, and stopped by its lifecycle.
 */
import { ANALYTICS_PRINCIPAL } from '@toolgate/platform';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/support/deadline.js';
import deployment from '../../../test/support/deployment/index.js';
import { gateEnv, identityEnv } from '../../../test/support/gate-harness.js';
import {
  dropNamespace,
  provisionNamespace,
  testNamespace,
} from '../../../test/support/namespace.js';
import { dropSubjects } from '../../../test/support/registry-cleanup.js';
import { kafkaClient, stackAddresses } from '../../../test/support/stack.js';
import { superviseAnalytics } from './supervise-analytics.js';

const ns = testNamespace('analytics-main');
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let kafka: Kafka;

beforeAll(async () => {
  await provisionNamespace(ns, {
    tools: deployment.tools.map((t) => t.name),
    tenants: deployment.tenants,
  });
  kafka = kafkaClient(ns.id);
});

afterAll(async () => {
  await dropNamespace(ns, { kafka });
  await dropSubjects(stackAddresses().schemaRegistryUrl, ns.id);
});

describe('superviseAnalytics', () => {
  it('starts without the integrity key or Redis, answers /readyz once it holds the partitions, and stops', async () => {
    const stack = stackAddresses();
    const exits: number[] = [];
    const supervised = await superviseAnalytics({
      env: {
        TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
        ...identityEnv(ANALYTICS_PRINCIPAL),
        TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
        TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
        TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
        TOOLGATE_HTTP_PORT: '0',
        TOOLGATE_LOG_LEVEL: 'silent',
      },
      exit: (code) => exits.push(code),
      process: new EventEmitter(),
    });
    const readyz = () => fetch(`http://127.0.0.1:${supervised.port}/readyz`).then((r) => r.status);
    await eventually(
      60_000,
      'the analytics service to be ready',
      async () => (await readyz()) === 200,
      200,
    );
    expect(supervised.service.partitions()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(supervised.service.live()).toEqual([]);
    await supervised.lifecycle.stop('test over');
    expect(exits).toEqual([0]);
  });

  it('runs beside the four stages under `toolgate start all`, and stops with them on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        'packages/cli/bin/toolgate.js',
        'start',
        'all',
        '--config',
        'test/support/deployment/index.ts',
      ],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          ...gateEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-all`, TOOLGATE_LOG_LEVEL: 'info' }),
          ...identityEnv('admin'),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await eventually(
        90_000,
        'the analytics service to start beside the stages',
        () => Promise.resolve(out.includes('"msg":"analytics started"')),
        100,
      );
      expect(out).toContain('"msg":"execute started"');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 150_000);
});
