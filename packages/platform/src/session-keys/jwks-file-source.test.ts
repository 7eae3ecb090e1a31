import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, type Deployment } from '@toolgate/shared';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJwksFile } from './jwks-file-source.js';
import { createGateWithSessionKeys } from './open-session-key-source.js';

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-jwks-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const warnings: string[] = [];
const log = {
  info: () => undefined,
  warn: (_fields: object, message?: string) => void warnings.push(message ?? ''),
} as unknown as Parameters<typeof openJwksFile>[1]['log'];

interface Key {
  readonly privateKey: CryptoKey;
  readonly jwk: Record<string, unknown>;
}
let a: Key;
let b: Key;
beforeAll(async () => {
  const make = async (kid: string): Promise<Key> => {
    const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    return { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid } };
  };
  [a, b] = await Promise.all([make('a'), make('b')]);
});

function write(file: string, value: unknown): void {
  writeFileSync(`${file}.next`, typeof value === 'string' ? value : JSON.stringify(value));
  renameSync(`${file}.next`, file);
}

const sign = (key: Key, kid: string) =>
  new SignJWT({}).setProtectedHeader({ alg: 'EdDSA', kid }).sign(key.privateKey);
const header = (kid: string) => ({ alg: 'EdDSA', kid });
const keyOf = async (token: string, kid: string, source: ReturnType<typeof openJwksFile>) => {
  const [, payload = '', signature = ''] = token.split('.');
  return source.getKey(header(kid), { payload, signature });
};

describe('openJwksFile', () => {
  it('reads the file again once the interval has passed and it changed, keeping the last good keys over a bad one', async () => {
    const file = path.join(dir, 'rotating.json');
    write(file, { keys: [a.jwk] });
    let now = 0;
    const source = openJwksFile(file, { log, checkEveryMs: 1_000, nowMs: () => now });
    const tokenA = await sign(a, 'a');
    const tokenB = await sign(b, 'b');
    await expect(keyOf(tokenA, 'a', source)).resolves.toBeDefined();
    expect(await source.generation()).toBe(0);

    write(file, { keys: [b.jwk] });
    now = 999; // within the interval: the file is not looked at
    await expect(keyOf(tokenB, 'b', source)).rejects.toThrow(/no applicable key/i);
    now = 1_000;
    await expect(keyOf(tokenB, 'b', source)).resolves.toBeDefined();
    await expect(keyOf(tokenA, 'a', source)).rejects.toThrow(/no applicable key/i);
    expect(await source.generation()).toBe(1);

    write(file, '{"keys": [');
    now = 2_000;
    await expect(keyOf(tokenB, 'b', source)).resolves.toBeDefined();
    expect(await source.generation()).toBe(1);
    expect(warnings.at(-1)).toMatch(/last good keys stay in force/);
  });

  it('refuses at start a file that is missing, not JSON, or holds a key the gate does not trust', () => {
    const problemsOf = (file: string) => {
      try {
        openJwksFile(file, { log });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems.join('; ');
      }
      return '';
    };
    expect(problemsOf(path.join(dir, 'absent.json'))).toMatch(/cannot be read/);
    const notJson = path.join(dir, 'not-json.json');
    write(notJson, 'keys');
    expect(problemsOf(notJson)).toMatch(/not JSON/);
    const hmac = path.join(dir, 'hmac.json');
    write(hmac, { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] });
    expect(problemsOf(hmac)).toMatch(/key type oct/);
  });
});

describe('createGateWithSessionKeys', () => {
  it('reports an unusable JWKS file together with every other problem of the deployment', () => {
    const deployment = {
      name: 'x',
      tools: [],
      tenants: [],
      policies: [],
      sessions: { jwksFile: path.join(dir, 'absent.json'), issuer: 'https://id.example.test' },
    } as Deployment;
    let problems: readonly string[] = [];
    try {
      createGateWithSessionKeys(deployment, {}, log);
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems.some((p) => /^sessions: jwksFile .* cannot be read/.test(p))).toBe(true);
    expect(problems.some((p) => /tenant/.test(p))).toBe(true);
  });
});
