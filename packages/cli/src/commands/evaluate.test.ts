import { describe, expect, it } from 'vitest';
import { mintSession } from '@toolgate/shared';
import {
  EXAMPLE_SESSION_ISSUER,
  EXAMPLE_SESSION_SECRET,
} from '../../../../examples/billing/toolgate.config.js';
import { USERS } from '../../../../examples/billing/data.js';
import { anthropic, openaiChat } from '../../../../examples/billing/fixtures/proposals.js';
import { runCaptured } from '../run-cli.test-support.js';

const CONFIG = 'examples/billing/toolgate.config.ts';

const cli = (args: string[], stdin = '') => runCaptured(args, { stdin });

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('toolgate evaluate', () => {
  it('answers one line per input, with commands, replays and refusals', async () => {
    const alice = await mintSession(USERS.alice, EXAMPLE_SESSION_SECRET, {
      now: new Date(),
      ttlSeconds: 600,
      issuer: EXAMPLE_SESSION_ISSUER,
    });
    const bob = await mintSession(USERS.bob, EXAMPLE_SESSION_SECRET, {
      now: new Date(),
      ttlSeconds: 600,
      issuer: EXAMPLE_SESSION_ISSUER,
    });
    const write = (proposalId: string, status: string) =>
      openaiChat({ proposalId, requestId: 'req-1', callId: 'call_1' }, 'approve_invoice', {
        invoice_id: 'inv_481',
        status,
      });
    const input = [
      { session: alice, proposal: write('p-1', 'approved') },
      { session: alice, proposal: write('p-2', 'approved') },
      { session: alice, proposal: write('p-3', 'rejected') },
      {
        session: bob,
        proposal: anthropic({ proposalId: 'p-4' }, 'approve_invoice', {
          invoice_id: 'inv_481',
          status: 'approved',
        }),
      },
      { proposal: openaiChat({ proposalId: 'p-5' }, 'search', { query: 'x' }) },
    ]
      .map((l) => JSON.stringify(l))
      .concat(['not json', ''])
      .join('\n');
    const { code, out, err } = await cli(['evaluate', '--config', CONFIG], input);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const [first, replay, conflict, viewer, anonymous, garbage, ...rest] = lines(out);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({
      proposalId: 'p-1',
      disposition: 'execute',
      command: { tool: 'approve_invoice', context: { tenant: 'acme', subject: 'alice' } },
    });
    expect(first).not.toHaveProperty('replay');
    expect(replay).toMatchObject({
      proposalId: 'p-2',
      disposition: 'execute',
      replay: true,
      command: first!['command'],
    });
    expect(conflict).toEqual({
      proposalId: 'p-3',
      disposition: 'deny',
      stage: 'idempotency',
      code: 'conflict',
      publicMessage: expect.any(String) as string,
    });
    expect(viewer).toMatchObject({
      proposalId: 'p-4',
      disposition: 'deny',
      stage: 'authorization',
      code: 'not_authorized',
    });
    expect(anonymous).toMatchObject({
      proposalId: 'p-5',
      stage: 'authentication',
      code: 'missing_session',
    });
    expect(garbage).toMatchObject({
      proposalId: null,
      stage: 'representation',
      code: 'invalid_proposal',
    });
    for (const line of [conflict, viewer, anonymous, garbage])
      expect(line).not.toHaveProperty('command');
  });

  it('exits 2 with one line naming the problem when --config is missing or wrong', async () => {
    expect(await cli(['evaluate'])).toMatchObject({
      code: 2,
      err: 'toolgate evaluate: --config is required\n',
    });
    const missing = await cli(['evaluate', '--config', 'nope.config.ts']);
    expect(missing).toMatchObject({
      code: 2,
      err: 'toolgate evaluate: config file not found: nope.config.ts\n',
    });
    expect((await cli(['evaluate', '--bogus'])).code).toBe(2);
  });

  it('prints help for the command and for the tool', async () => {
    const help = await cli(['evaluate', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('usage: toolgate evaluate --config <file>');
    expect((await cli(['--help'])).out).toContain('evaluate');
    expect(await cli(['frobnicate'])).toMatchObject({ code: 2 });
  });
});
