import { describe, expect, it } from 'vitest';
import { mintSession } from '@toolgate/shared';
import {
  EXAMPLE_SESSION_ISSUER,
  EXAMPLE_SESSION_SECRET,
} from '../../../../examples/billing/toolgate.config.js';
import { USERS } from '../../../../examples/billing/data.js';
import { runCaptured } from '../run-cli.test-support.js';

const CONFIG = 'examples/billing/toolgate.config.ts';
const ALL = ['search', 'calculate', 'final', 'approve_invoice', 'send_email', 'refund_payment'];

const cli = (args: string[], env: Record<string, string> = {}) => runCaptured(args, { env });

const token = (who: keyof typeof USERS, ttlSeconds = 600, now = new Date()) =>
  mintSession(USERS[who], EXAMPLE_SESSION_SECRET, {
    now,
    ttlSeconds,
    issuer: EXAMPLE_SESSION_ISSUER,
  });

const names = (out: string) =>
  (JSON.parse(out) as { name?: string; function?: { name: string } }[]).map(
    (t) => t.name ?? t.function?.name,
  );

// Compiling the Cedar policies takes a few seconds on a busy machine; the default 5 s is too tight.
describe('toolgate tools export', { timeout: 30_000 }, () => {
  it('lists every tool in each provider shape without --as', async () => {
    const openai = await cli(['tools', 'export', '--format', 'openai', '--config', CONFIG]);
    expect({ code: openai.code, err: openai.err }).toEqual({ code: 0, err: '' });
    expect(names(openai.out)).toEqual(ALL);
    expect(JSON.parse(openai.out)).toContainEqual(
      expect.objectContaining({
        type: 'function',
        function: expect.objectContaining({ name: 'search' }) as unknown,
      }),
    );
    const mcp = await cli(['tools', 'export', '--format', 'mcp'], { TOOLGATE_CONFIG: CONFIG });
    const refund = (JSON.parse(mcp.out) as { name: string; annotations: unknown }[]).find(
      (t) => t.name === 'refund_payment',
    );
    expect(refund?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
  });

  it('omits the tools a viewer may not call, and keeps them for an approver', async () => {
    const args = ['tools', 'export', '--format', 'anthropic', '--config', CONFIG, '--as'];
    const viewer = await cli([...args, await token('bob')]);
    expect(viewer.code).toBe(0);
    expect(names(viewer.out)).toEqual(['search', 'calculate', 'final']);
    expect((JSON.parse(viewer.out) as unknown[])[0]).toHaveProperty('input_schema');
    const approver = await cli([...args, await token('alice')]);
    expect(names(approver.out)).toEqual(ALL);
  });

  it('refuses an expired or forged token with exit 4 and prints no tools', async () => {
    const args = ['tools', 'export', '--format', 'openai', '--config', CONFIG, '--as'];
    const expired = await cli([
      ...args,
      await token('alice', 60, new Date(Date.now() - 3_600_000)),
    ]);
    expect(expired).toEqual({
      code: 4,
      out: '',
      err: expect.stringMatching(
        /^toolgate tools: --as: session refused \(expired_session\)/,
      ) as string,
    });
    const forged = await mintSession(USERS.alice, 'x'.repeat(48), {
      now: new Date(),
      ttlSeconds: 60,
      issuer: EXAMPLE_SESSION_ISSUER,
    });
    expect(await cli([...args, forged])).toMatchObject({ code: 4, out: '' });
    expect(await cli([...args, 'not-a-token'])).toMatchObject({ code: 4, out: '' });
  });

  it('exits 2 naming the problem for a bad format, subcommand or missing config', async () => {
    expect(await cli(['tools', 'export', '--format', 'gemini', '--config', CONFIG])).toMatchObject({
      code: 2,
      err: 'toolgate tools: --format "gemini": one of openai, anthropic, mcp\n',
    });
    expect(await cli(['tools', 'list', '--format', 'openai'])).toMatchObject({ code: 2 });
    expect(await cli(['tools', 'export', '--format', 'openai'])).toMatchObject({
      code: 2,
      err: 'toolgate tools: --config (or TOOLGATE_CONFIG) is required\n',
    });
    expect((await cli(['tools', '--help'])).out).toContain('usage: toolgate tools export');
  });
});
