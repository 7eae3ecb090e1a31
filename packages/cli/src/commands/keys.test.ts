import {
  createObservationSigner,
  createObservationVerifier,
  deriveToolKey,
} from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../run-cli.test-support.js';

const cli = (args: string[], env: Record<string, string> = {}) => runCaptured(args, { env });

const COMMAND_KEY = 'command-key-for-tests-0123456789abcdef';
const KEY_LINE = /^TOOLGATE_OBSERVATION_KEY=([A-Za-z0-9+/=]+)$/;
const PUBLIC_LINE = /^TOOLGATE_OBSERVATION_PUBLIC_KEYS=([A-Za-z0-9+/=]+)$/;

async function observationPair(): Promise<{ privateKey: string; publicKey: string }> {
  const { code, out } = await cli(['keys', 'observation']);
  expect(code).toBe(0);
  const [keyLine = '', publicLine = '', ...rest] = out.split('\n');
  expect(rest).toEqual(['']);
  return {
    privateKey: KEY_LINE.exec(keyLine)?.[1] ?? '',
    publicKey: PUBLIC_LINE.exec(publicLine)?.[1] ?? '',
  };
}

describe('toolgate keys tool', () => {
  it("derives each tool's key from TOOLGATE_COMMAND_KEY, as TOOLGATE_TOOL_KEYS", async () => {
    const run = await cli(['keys', 'tool', 'search', 'refund_payment'], {
      TOOLGATE_COMMAND_KEY: COMMAND_KEY,
    });
    expect(run).toEqual({
      code: 0,
      err: '',
      out: `search:${deriveToolKey(COMMAND_KEY, 'search')},refund_payment:${deriveToolKey(COMMAND_KEY, 'refund_payment')}\n`,
    });
    expect(run.out).not.toContain(COMMAND_KEY);
  });

  it('refuses a missing or short command key naming the variable, never echoing the key', async () => {
    expect(await cli(['keys', 'tool', 'search'])).toEqual({
      code: 2,
      out: '',
      err: "toolgate keys: TOOLGATE_COMMAND_KEY is required: execute's command key\n",
    });
    const short = await cli(['keys', 'tool', 'search'], {
      TOOLGATE_COMMAND_KEY: 'short-secret-xyz',
    });
    expect(short).toEqual({
      code: 2,
      out: '',
      err: 'toolgate keys: TOOLGATE_COMMAND_KEY is 16 bytes; at least 32 are required\n',
    });
  });

  it('refuses a missing or malformed tool name', async () => {
    const env = { TOOLGATE_COMMAND_KEY: COMMAND_KEY };
    expect(await cli(['keys', 'tool'], env)).toMatchObject({
      code: 2,
      out: '',
      err: 'toolgate keys: name at least one tool\n',
    });
    const bad = await cli(['keys', 'tool', 'search', 'a b'], env);
    expect(bad).toMatchObject({ code: 2, out: '' });
    expect(bad.err).toContain('not a tool name: "a b"');
  });
});

describe('toolgate keys observation', () => {
  it('makes a fresh Ed25519 pair whose public half verifies what the private half signs', async () => {
    const pair = await observationPair();
    const signature = createObservationSigner(pair.privateKey).sign('t', Buffer.from('x'));
    const verify = createObservationVerifier([pair.publicKey]);
    expect(verify('t', Buffer.from('x'), signature)).toBe(true);
    expect((await observationPair()).privateKey).not.toBe(pair.privateKey);
  });

  it('prints the public key of TOOLGATE_OBSERVATION_KEY, never the key itself', async () => {
    const pair = await observationPair();
    const run = await cli(['keys', 'observation-public'], {
      TOOLGATE_OBSERVATION_KEY: pair.privateKey,
    });
    expect(run).toEqual({ code: 0, err: '', out: `${pair.publicKey}\n` });
  });

  it('refuses a missing or unusable observation key without echoing it', async () => {
    expect(await cli(['keys', 'observation-public'])).toMatchObject({ code: 2, out: '' });
    const given = Buffer.from('not a private key at all').toString('base64');
    const bad = await cli(['keys', 'observation-public'], { TOOLGATE_OBSERVATION_KEY: given });
    expect(bad).toMatchObject({ code: 2, out: '' });
    expect(bad.err).toMatch(/^toolgate keys: TOOLGATE_OBSERVATION_KEY: /);
    expect(bad.err).not.toContain(given);
  });
});

describe('toolgate keys secret', () => {
  it('prints a fresh 32-byte key each time', async () => {
    const first = await cli(['keys', 'secret']);
    const second = await cli(['keys', 'secret']);
    expect(first.out).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(Buffer.from(first.out.trim(), 'base64url')).toHaveLength(32);
    expect(second.out).not.toBe(first.out);
  });

  it('exits 2 for an unknown action or names where none are taken', async () => {
    expect(await cli(['keys'])).toMatchObject({
      code: 2,
      err: 'toolgate keys: name one action: tool, observation, observation-public, secret\n',
    });
    expect(await cli(['keys', 'secret', 'extra'])).toMatchObject({
      code: 2,
      err: 'toolgate keys: keys secret takes no names\n',
    });
  });
});
