/**
 * Sessions as identity providers issue them, on the real stack: the validate stage verifies tokens
 * against a JWKS file that is rotated while it runs (no restart) and against a JWKS URL served by
 * a local HTTP server that goes slow, down and up again (refused while the keys cannot be had,
 * never accepted); it requires the configured issuer, `iat` and a bounded lifetime; and the
 * example deployment refuses to start without a key unless it is told it is a demo.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DEPLOYMENT, TEST_SESSION_SECRET, USERS } from '../support/deployment/index.js';
import { eventually } from '../support/deadline.js';
import {
  gateEnv,
  sessionHeaders,
  startGateHarness,
  type GateHarness,
} from '../support/gate-harness.js';
import { testNamespace } from '../support/namespace.js';
import { openaiChat } from '../support/proposals.js';
import * as validate from '../../services/validate/src/service.js';

const ISSUER = 'https://id.example.test/';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly jwk: Record<string, unknown>;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  return { kid, privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid } };
}

const epoch = () => Math.floor(Date.now() / 1000);
const claimsOf = (overrides: JWTPayload = {}): JWTPayload => ({
  sub: USERS.alice.subject,
  tenant: USERS.alice.tenant,
  roles: [...USERS.alice.roles],
  iss: ISSUER,
  aud: 'toolgate',
  iat: epoch(),
  exp: epoch() + 600,
  jti: randomUUID(),
  ...overrides,
});

const signEd = (key: SigningKey, claims: JWTPayload = claimsOf()) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: key.kid }).sign(key.privateKey);

const signHs256 = (claims: JWTPayload) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(TEST_SESSION_SECRET));

/** What the gate decided about one proposal: validated, or the authentication refusal. */
type Verdict =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly code: string; readonly detail: string };

let sent = 0;

/** The audit detail of a refusal. */
function detailOf(verdict: Verdict): string {
  if (verdict.accepted) throw new Error('expected a refusal, the token was accepted');
  return verdict.detail;
}

/** Sends one proposal with `token` and waits for validate's decision on it. */
async function decide(h: GateHarness, token: string): Promise<Verdict> {
  sent += 1;
  const proposalId = `p-${sent}-${randomUUID().slice(0, 8)}`;
  await h.send(
    'proposals',
    'run-sessions',
    openaiChat({ proposalId, runId: 'run-sessions' }, 'lookup', { query: 'x' }),
    sessionHeaders(token),
  );
  const mine = (r: { value: Record<string, unknown> }) => r.value['proposalId'] === proposalId;
  await eventually(30_000, `validate's decision on ${proposalId}`, () =>
    Promise.resolve(h.seen('validated').some(mine) || h.seen('audit').some(mine)),
  );
  if (h.seen('validated').some(mine)) return { accepted: true };
  const [audit] = await h.waitFor('audit', `the audit event of ${proposalId}`, mine);
  const [observation] = await h.waitFor('observations', `the refusal of ${proposalId}`, mine);
  expect(observation!.value).toMatchObject({ outcome: 'rejected', stage: 'authentication' });
  return {
    accepted: false,
    code: String(observation!.value['code']),
    detail: String(audit!.value['internalDetail']),
  };
}

/** Sends fresh proposals until `expected` holds of the verdict (keys change within a bound, not at once). */
async function until(
  what: string,
  attempt: () => Promise<Verdict>,
  expected: (v: Verdict) => boolean,
): Promise<Verdict> {
  let last: Verdict | undefined;
  await eventually(30_000, what, async () => expected((last = await attempt())), 100);
  return last!;
}

describe('session keys from a JWKS file, rotated while the gate runs', () => {
  let h: GateHarness;
  let dir: string;
  let file: string;
  let first: SigningKey;
  let second: SigningKey;
  const writeJwks = (text: string) => {
    // Written beside and renamed over, as a rotation tool does: the gate never reads half a file.
    const next = `${file}.next`;
    writeFileSync(next, text);
    renameSync(next, file);
  };

  beforeAll(async () => {
    [first, second] = await Promise.all([signingKey('first'), signingKey('second')]);
    dir = mkdtempSync(path.join(tmpdir(), 'toolgate-jwks-'));
    file = path.join(dir, 'jwks.json');
    writeJwks(JSON.stringify({ keys: [first.jwk] }));
    h = await startGateHarness({
      label: 'session-jwks-file',
      modules: [validate],
      deployment: {
        ...TEST_DEPLOYMENT,
        sessions: { secret: TEST_SESSION_SECRET, jwksFile: file, issuer: ISSUER },
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a new key and refuses a removed one without a restart, keeping the last good keys over a bad file', async () => {
    const byFirst = await signEd(first);
    expect(await decide(h, byFirst)).toEqual({ accepted: true });
    expect(await decide(h, await signEd(second))).toMatchObject({ code: 'invalid_session' });

    writeJwks(JSON.stringify({ keys: [second.jwk] }));
    await until(
      'a token of the new key accepted',
      async () => decide(h, await signEd(second)),
      (v) => v.accepted,
    );
    // The very token that was verified (and cached) before the rotation is refused now.
    expect(await decide(h, byFirst)).toMatchObject({ accepted: false, code: 'invalid_session' });

    writeJwks('{"keys": [ not json');
    writeJwks(JSON.stringify({ keys: [{ ...second.jwk, d: 'private' }] }));
    // Whatever the gate made of the bad files, the last good keys stay in force.
    for (let i = 0; i < 3; i += 1) {
      expect(await decide(h, await signEd(second))).toEqual({ accepted: true });
    }
  });

  it('refuses a token of the wrong issuer, one without iat and one valid for ten years, naming the claim', async () => {
    const wrongIssuer = await decide(h, await signHs256(claimsOf({ iss: 'https://evil.test/' })));
    expect(wrongIssuer).toMatchObject({ accepted: false, code: 'invalid_session' });
    expect(detailOf(wrongIssuer)).toMatch(/claim "iss"/);

    const { iat: _iat, ...noIat } = claimsOf();
    const withoutIat = await decide(h, await signHs256(noIat));
    expect(withoutIat).toMatchObject({ accepted: false, code: 'invalid_session' });
    expect(detailOf(withoutIat)).toMatch(/claim "iat" missing/);

    const decade = await decide(h, await signHs256(claimsOf({ exp: epoch() + 10 * 365 * 86_400 })));
    expect(decade).toMatchObject({ accepted: false, code: 'invalid_session' });
    expect(detailOf(decade)).toMatch(/lifetime exp - iat/);

    expect(await decide(h, await signHs256(claimsOf()))).toEqual({ accepted: true });
  });
});

/** A JWKS endpoint whose behaviour the test sets: answering, slow (never within the bound), or down. */
function jwksServer(keys: () => Record<string, unknown>[]) {
  let mode: 'up' | 'slow' | 'down' = 'up';
  const server: Server = createServer((request, response) => {
    if (mode === 'slow') return; // holds the request open: the gate's bounded wait must end it
    if (mode === 'down') {
      response.writeHead(503).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: keys() }));
  });
  return {
    server,
    set(next: typeof mode) {
      mode = next;
    },
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    },
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('session keys from a JWKS URL', () => {
  let h: GateHarness;
  let key: SigningKey;
  let idp: ReturnType<typeof jwksServer>;

  beforeAll(async () => {
    key = await signingKey('url-key');
    idp = jwksServer(() => [key.jwk]);
    const url = await idp.listen();
    h = await startGateHarness({
      label: 'session-jwks-url',
      modules: [validate],
      deployment: {
        ...TEST_DEPLOYMENT,
        sessions: { jwksUrl: url, issuer: ISSUER, jwksTimeoutMs: 500, jwksCacheSeconds: 1 },
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });

  it('accepts its keys, refuses while it is slow or down (session_keys_unavailable), and recovers', async () => {
    expect(await decide(h, await signEd(key))).toEqual({ accepted: true });

    idp.set('slow');
    const slow = await until(
      'a token refused while the JWKS URL is slow',
      async () => decide(h, await signEd(key)),
      (v) => !v.accepted,
    );
    expect(slow).toMatchObject({ code: 'session_keys_unavailable' });
    expect(detailOf(slow)).toMatch(/JWKSTimeout/);

    idp.set('down');
    const down = await until(
      'a token refused while the JWKS URL answers 503',
      async () => decide(h, await signEd(key)),
      (v) => !v.accepted && /200 OK/.test(v.detail),
    );
    expect(down).toMatchObject({ code: 'session_keys_unavailable' });

    idp.set('up');
    await until(
      'a token accepted once the JWKS URL answers again',
      async () => decide(h, await signEd(key)),
      (v) => v.accepted,
    );
    const stranger = await signingKey('stranger');
    expect(await decide(h, await signEd(stranger))).toMatchObject({ code: 'invalid_session' });
  });
});

describe('the example deployment', () => {
  /** `toolgate start validate` of the example with `env` (no session variable unless given). */
  function startExample(extra: Record<string, string>) {
    const ns = testNamespace('session-example');
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      ...gateEnv(ns),
      ...extra,
    };
    return new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          'packages/cli/bin/toolgate.js',
          'start',
          'validate',
          '--config',
          'examples/billing/toolgate.config.ts',
        ],
        { cwd: repoRoot, env, timeout: 60_000 },
        (error, _stdout, stderr) =>
          resolve({ code: error === null ? 0 : (error.code as number | null), stderr }),
      );
    });
  }

  it('refuses to start without session keys, saying how to give a real one', async () => {
    const { code, stderr } = await startExample({});
    expect(code).toBe(2);
    expect(stderr).toMatch(/no key to verify session tokens with/);
    expect(stderr).toMatch(/TOOLGATE_SESSION_JWKS_URL/);
    expect(stderr).toMatch(/TOOLGATE_SESSION_SECRET/);
  });
});
