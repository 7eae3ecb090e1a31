/**
 * The toolgate CLI against the real stack: the four stages and the example's tool worker run
 * in-process in a namespace of their own; the CLI is driven in-process with `runCli` and the
 * namespace's environment (without the integrity key, which `tail` and `stats` must not need).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as authorize from '@toolgate/authorize';
import * as confirm from '@toolgate/confirm';
import * as execute from '@toolgate/execute';
import * as validate from '@toolgate/validate';
import { startToolWorker, type ToolWorker } from '@toolgate/tool-worker';
import { APPROVAL_PORT_NAME, SILENT_LOGGER } from '@toolgate/platform';
import type { Proposal } from '@toolgate/shared';
import { USERS } from '../../examples/billing/data.js';
import { anthropic, mcp, openaiChat } from '../../examples/billing/fixtures/proposals.js';
import { createBillingHandlers } from '../../examples/billing/tool-handlers.js';
import { runCaptured } from '../../packages/cli/src/run-cli.test-support.js';
import billing from '../../examples/billing/toolgate.config.js';
import { eventually } from '../support/deadline.js';
import {
  identityEnv,
  sessionHeaders,
  startGateHarness,
  type GateHarness,
} from '../support/gate-harness.js';
import { redisAdminUrl, stackAddresses } from '../support/stack.js';
import { workerEnv } from '../support/tool-worker-harness.js';

let h: GateHarness;
let worker: ToolWorker;
let env: Record<string, string>;
let approvals: string;
const tokens: Record<string, string> = {};
const startedAt = new Date(Date.now() - 1000).toISOString();

beforeAll(async () => {
  // The example's tools and data, with its own tool handlers: the CLI is shown on the example.
  h = await startGateHarness({
    label: 'cli',
    modules: [validate, authorize, confirm, execute],
    deployment: billing,
  });
  worker = await startToolWorker({
    env: workerEnv(h.ns),
    name: 'billing',
    tools: createBillingHandlers(h.gate.runtime.objects),
    logger: SILENT_LOGGER,
  });
  for (const [name, user] of Object.entries(USERS)) tokens[name] = await h.session(user);
  const stack = stackAddresses();
  // Read as the stack's super user; the identity each reading needs is the CLI's own tests'.
  env = {
    TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    ...identityEnv('admin'),
    TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    TOOLGATE_TOPIC_PREFIX: `${h.ns.id}.`,
    TOOLGATE_GROUP_PREFIX: `${h.ns.id}.`,
  };
  approvals = `http://127.0.0.1:${h.gate.ports[APPROVAL_PORT_NAME]}`;
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

/** Runs the CLI in-process with the gate's environment; `stop` is what Ctrl-C would abort. */
function cli(args: string[], extraEnv: Record<string, string> = {}, stop?: AbortSignal) {
  return runCaptured(args, {
    env: { ...env, ...extraEnv },
    ...(stop === undefined ? {} : { stop }),
  });
}

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function submit(who: string | undefined, proposal: Proposal): Promise<void> {
  const token = who === undefined ? undefined : tokens[who];
  await h.send('proposals', proposal.runId, proposal, sessionHeaders(token));
}

async function terminal(proposalId: string): Promise<Record<string, unknown>> {
  const [found] = await h.waitFor(
    'observations',
    `the end of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId && r.value['outcome'] !== 'pending_confirmation',
    1,
    60_000,
  );
  return found!.value;
}

describe('toolgate tail and stats on the audit topic', () => {
  it('tails the audit topic decoded, one line per record, from --since, stopping at --max', async () => {
    const runId = 'run-cli-mix';
    await submit('alice', openaiChat({ proposalId: 'c-good', runId }, 'search', { query: 'open' }));
    await submit('alice', anthropic({ proposalId: 'c-unknown', runId }, 'teleport', { to: 'x' }));
    await submit(
      'bob',
      openaiChat({ proposalId: 'c-viewer', runId }, 'approve_invoice', {
        invoice_id: 'inv_481',
        status: 'approved',
      }),
    );
    await submit(undefined, mcp({ proposalId: 'c-anonymous', runId }, 'search', { query: 'x' }));
    expect(await terminal('c-good')).toMatchObject({ outcome: 'result' });
    expect(await terminal('c-unknown')).toMatchObject({ stage: 'schema', code: 'unknown_tool' });
    expect(await terminal('c-viewer')).toMatchObject({
      stage: 'authorization',
      code: 'not_authorized',
    });
    expect(await terminal('c-anonymous')).toMatchObject({ code: 'missing_session' });

    const tail = await cli(['tail', 'audit', '--since', startedAt, '--max', '2']);
    expect({ code: tail.code, err: tail.err }).toEqual({ code: 0, err: '' });
    const records = lines(tail.out);
    expect(records).toHaveLength(2);
    for (const r of records) {
      expect(r).toMatchObject({
        partition: expect.any(Number) as number,
        offset: expect.stringMatching(/^\d+$/) as string,
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) as string,
        value: { eventId: expect.stringMatching(/^[0-9a-f]{64}$/) as string },
      });
      expect(Date.parse(String(r['timestamp']))).toBeGreaterThanOrEqual(Date.parse(startedAt));
    }
  });

  it('tails until stopped, and exits 5 for a topic Kafka does not have', async () => {
    const stop = new AbortController();
    const tail = cli(['tail', 'observations.acme', '--since', startedAt], {}, stop.signal);
    await eventually(30_000, 'tail to print the four observations', () =>
      Promise.resolve(tail.output().trim().split('\n').length >= 4),
    );
    stop.abort();
    const ended = await tail;
    expect(ended.code).toBe(0);
    const ids = lines(ended.out).map((r) => (r['value'] as { proposalId: string }).proposalId);
    expect(ids).toEqual(expect.arrayContaining(['c-good', 'c-unknown', 'c-viewer', 'c-anonymous']));

    const missing = await cli(['tail', 'commands.no_such_tool', '--max', '1']);
    expect(missing.code).toBe(5);
    expect(missing.err).toMatch(
      new RegExp(`topic ${h.ns.id}\\.toolgate\\.commands\\.no_such_tool does not exist`),
    );
  });
});

describe('toolgate pending, approve and reject', () => {
  it('lists the confirmations, and an approval runs the call while a rejection does not', async () => {
    const runId = 'run-cli-approvals';
    await submit(
      'alice',
      mcp({ proposalId: 'c-refund', runId }, 'refund_payment', {
        payment_id: 'pay_11',
        amount_cents: 1000,
      }),
    );
    await submit(
      'alice',
      mcp({ proposalId: 'c-email', runId }, 'send_email', { draft_id: 'draft_7' }),
    );
    const requests = await h.waitFor(
      'confirmations',
      'two confirmation requests',
      (r) => r.value['runId'] === runId,
      2,
    );
    const idOf = (proposalId: string) =>
      String(requests.find((r) => r.value['proposalId'] === proposalId)!.value['confirmationId']);

    const listed = await cli(['pending', '--url', approvals, '--as', tokens['alice']!, '--json']);
    expect({ code: listed.code, err: listed.err }).toEqual({ code: 0, err: '' });
    const body = JSON.parse(listed.out) as {
      tenant: string;
      confirmations: { confirmationId: string; digest: string }[];
    };
    expect(body.tenant).toBe('acme');
    expect(body.confirmations.map((c) => c.confirmationId).sort()).toEqual(
      [idOf('c-refund'), idOf('c-email')].sort(),
    );
    const text = await cli(['pending', '--url', approvals, '--as', tokens['alice']!]);
    expect(text.out.split('\n')[0]).toBe('2 pending confirmations for tenant acme');
    expect(text.out).toMatch(
      new RegExp(`^${idOf('c-refund')}  refund_payment  by alice  expires `, 'm'),
    );

    const approved = await cli([
      'approve',
      idOf('c-refund'),
      '--url',
      approvals,
      '--as',
      tokens['alice']!,
    ]);
    expect(approved).toMatchObject({ code: 0, err: '' });
    expect(await terminal('c-refund')).toMatchObject({ outcome: 'result' });
    const rejected = await cli(['reject', idOf('c-email'), '--reason', 'Wrong customer.'], {
      TOOLGATE_APPROVAL_URL: approvals,
      TOOLGATE_SESSION_TOKEN: tokens['alice']!,
    });
    expect(rejected).toMatchObject({ code: 0, err: '' });
    expect(await terminal('c-email')).toMatchObject({
      outcome: 'rejected',
      stage: 'confirmation',
      code: 'rejected_by_human',
      message: 'A person rejected this call: Wrong customer.',
    });
    const payment = await h.gate.runtime.objects.load('acme', { type: 'Payment', id: 'pay_11' });
    expect(payment?.attributes).toMatchObject({ refunded_cents: 1000 });

    const after = await cli(['pending', '--url', approvals, '--as', tokens['alice']!]);
    expect(after.out).toBe('0 pending confirmations for tenant acme\n');
    const again = await cli([
      'approve',
      idOf('c-refund'),
      '--url',
      approvals,
      '--as',
      tokens['alice']!,
    ]);
    expect(again.code).toBe(5);
    expect(again.err).toMatch(/no pending confirmation conf_\w+ for tenant acme/);
  });

  it('exits 4 for a refused session and 3 when the approval API cannot be reached', async () => {
    const refused = await cli(['pending', '--url', approvals, '--as', 'not-a-token']);
    expect(refused.code).toBe(4);
    expect(refused.err).toMatch(
      /^toolgate pending: list pending confirmations: your session was refused \(HTTP 401\)/,
    );
    const closed = await freePort();
    const down = await cli([
      'approve',
      'conf_x',
      '--url',
      `http://127.0.0.1:${closed}`,
      '--as',
      't',
    ]);
    expect(down.code).toBe(3);
    expect(down.err).toMatch(
      /cannot reach the approval API at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
  });
});

describe('toolgate stats', () => {
  it('counts refusals by stage and code over the window, and every event with --all', async () => {
    const stats = await cli(['stats', '--since', startedAt, '--json']);
    expect({ code: stats.code, err: stats.err }).toEqual({ code: 0, err: '' });
    const json = JSON.parse(stats.out) as {
      rows: unknown[];
      counted: number;
      skipped: number;
      topic: string;
    };
    expect(json.topic).toBe(`${h.ns.id}.toolgate.audit`);
    expect(json.skipped).toBe(0);
    expect(json.rows).toHaveLength(4);
    expect(json.rows).toEqual(
      expect.arrayContaining([
        { values: { stage: 'schema', code: 'unknown_tool' }, count: 1 },
        { values: { stage: 'authorization', code: 'not_authorized' }, count: 1 },
        { values: { stage: 'authentication', code: 'missing_session' }, count: 1 },
        { values: { stage: 'confirmation', code: 'rejected_by_human' }, count: 1 },
      ]),
    );

    const byTool = await cli(['stats', '--since', startedAt, '--by', 'tool,tenant']);
    expect(byTool.code).toBe(0);
    expect(byTool.out.split('\n')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^approve_invoice\s+acme\s+1$/),
        expect.stringMatching(/^send_email\s+acme\s+1$/),
        expect.stringMatching(/^total\s+4$/),
      ]),
    );

    const all = await cli(['stats', '--since', startedAt, '--all', '--by', 'kind', '--json']);
    const kinds = Object.fromEntries(
      (JSON.parse(all.out) as { rows: { values: { kind: string }; count: number }[] }).rows.map(
        (r) => [r.values.kind, r.count],
      ),
    );
    expect(kinds).toMatchObject({
      rejected: 4,
      pending_confirmation: 2,
      result: 2,
      command_issued: 2,
    });
  });

  it('exits 5 when the installation has no audit topic, and 2 for a bad variable', async () => {
    const none = await cli(['stats'], { TOOLGATE_TOPIC_PREFIX: `${h.ns.id}-absent.` });
    expect(none.code).toBe(5);
    expect(none.err).toMatch(/toolgate\.audit does not exist/);
    const bad = await cli(['stats'], { TOOLGATE_KAFKA_BROKERS: 'not a broker' });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/TOOLGATE_KAFKA_BROKERS/);
  });
});

describe('toolgate stack', () => {
  // Every component is given by its override variable, so the stack is external to these runs,
  // and the stack directory is a fresh one with no pid files: `down` has nothing it may stop.
  const stackEnv = () => {
    const stack = stackAddresses();
    return {
      TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
      ...identityEnv('admin'),
      TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
      TOOLGATE_REDIS_URL: redisAdminUrl(),
    };
  };

  it('reports the running stack up with exit 0; up reuses it and down leaves it alone', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-cli-stack-'));
    try {
      const extra = { ...stackEnv(), TOOLGATE_STACK_DIR: dir };
      const status = await cli(['stack', 'status'], extra);
      expect(status).toMatchObject({ code: 0, err: '' });
      expect(status.out.split('\n').filter((l) => /^\w+\s+up\s/.test(l))).toHaveLength(3);

      const up = await cli(['stack', 'up'], extra);
      expect(up).toMatchObject({ code: 0, err: '' });
      expect(up.out).toMatch(/^stack: kafka: reusing .* \(external\)$/m);
      expect(up.out).toMatch(/^stack: topics: all declared topics exist$/m);

      const down = await cli(['stack', 'down'], extra);
      expect(down).toMatchObject({ code: 0, err: '' });
      for (const [component, variable] of [
        ['registry', 'TOOLGATE_SCHEMA_REGISTRY_URL'],
        ['kafka', 'TOOLGATE_KAFKA_BROKERS'],
        ['redis', 'TOOLGATE_REDIS_URL'],
      ])
        expect(down.out).toContain(`stack: ${component}: external (${variable}), left alone`);
      expect((await cli(['stack', 'status'], extra)).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 3 when a component is down and 2 for a bad stack setting', async () => {
    const closed = await freePort();
    const down = await cli(['stack', 'status'], {
      ...stackEnv(),
      TOOLGATE_REDIS_URL: `redis://127.0.0.1:${closed}`,
    });
    expect(down.code).toBe(3);
    expect(down.out).toMatch(/^redis\s+down\s/m);
    const bad = await cli(['stack', 'status'], { TOOLGATE_STACK_KAFKA_PORT: 'ninety' });
    expect(bad).toMatchObject({ code: 2, out: '' });
    expect(bad.err).toMatch(/TOOLGATE_STACK_KAFKA_PORT=ninety is not a TCP port/);
  });
});

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
