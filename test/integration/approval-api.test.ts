/**
 * The approval API as it is exposed: on an address of its own, apart from /metrics; page by page
 * over every waiting confirmation a person may see, so that no requester's volume hides another's;
 * and over HTTPS with the configured certificate, which the CLI trusts through `--ca`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as confirm from '@toolgate/confirm';
import { APPROVAL_PORT_NAME } from '@toolgate/platform';
import { confirmationIdFor, type PendingConfirmation, type Principal } from '@toolgate/shared';
import { runCaptured } from '../../packages/cli/src/run-cli.test-support.js';
import { authorizedFor, sendAuthorized } from '../support/authorized-envelopes.js';
import { USERS } from '../support/deployment/index.js';
import { startGateHarness, type GateHarness } from '../support/gate-harness.js';
import { mcp } from '../support/proposals.js';

/** acme members who may ask for refunds (and, being approvers, approve them). */
const MALLORY: Principal = { subject: 'mallory', tenant: 'acme', roles: ['approver'] };
const DAVE: Principal = { subject: 'dave', tenant: 'acme', roles: ['approver'] };
/** A globex viewer: may see the confirmations they asked for, and no one else's. */
const GUS: Principal = { subject: 'gus', tenant: 'globex', roles: ['viewer'] };
const CAROL = USERS.carol;

const refund = (proposalId: string) =>
  mcp({ proposalId, runId: `run-${proposalId}` }, 'refund', { payment_id: 'pay_1', amount: 1 });

interface Page {
  readonly status: number;
  readonly body: { tenant?: string; confirmations?: { confirmationId: string }[]; next?: string };
}

/** `GET /pending` with `query`, as `token`, over plain HTTP. */
async function getPending(port: number, token: string, query = ''): Promise<Page> {
  const response = await fetch(`http://127.0.0.1:${port}/pending${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Page['body'] };
}

/** Every page of `GET /pending` as `token` sees them, following `next`. */
async function allPages(port: number, token: string, limit?: number): Promise<Page['body'][]> {
  const pages: Page['body'][] = [];
  let cursor: string | undefined;
  do {
    const query = [
      ...(limit === undefined ? [] : [`limit=${limit}`]),
      ...(cursor === undefined ? [] : [`cursor=${encodeURIComponent(cursor)}`]),
    ];
    const page = await getPending(port, token, query.length === 0 ? '' : `?${query.join('&')}`);
    expect(page.status).toBe(200);
    pages.push(page.body);
    cursor = page.body.next;
  } while (cursor !== undefined && pages.length < 100);
  return pages;
}

const idsOf = (pages: readonly Page['body'][]) =>
  pages.flatMap((p) => (p.confirmations ?? []).map((c) => c.confirmationId));

describe('the approval API, page by page', () => {
  let h: GateHarness;
  let api: number;
  beforeAll(async () => {
    h = await startGateHarness({
      label: 'approval-pages',
      modules: [confirm],
      tap: ['confirmations'],
    });
    api = h.gate.ports[APPROVAL_PORT_NAME]!;
  }, 120_000);
  afterAll(() => h?.close());

  it('serves the approval routes apart from /metrics, and /metrics apart from them', async () => {
    const metrics = h.gate.ports['confirm']!;
    expect(api).not.toBe(metrics);
    expect((await fetch(`http://127.0.0.1:${api}/pending`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${api}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metrics}/pending`)).status).toBe(404);
    const approve = await fetch(`http://127.0.0.1:${metrics}/confirmations/conf_x/approve`, {
      method: 'POST',
    });
    expect(approve.status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metrics}/metrics`)).status).toBe(200);
  });

  it('shows an approver every confirmation, the newest too, when one member parked more than 100', async () => {
    const parkedByMallory = Array.from({ length: 105 }, (_, i) => `p-many-${i}`);
    for (const proposalId of parkedByMallory) {
      await sendAuthorized(h, await authorizedFor(h, MALLORY, refund(proposalId)));
    }
    await h.waitFor(
      'confirmations',
      "mallory's 105 confirmation requests",
      (r) => String(r.value['proposalId']).startsWith('p-many-'),
      parkedByMallory.length,
      90_000,
    );
    await sendAuthorized(h, await authorizedFor(h, DAVE, refund('p-newer')));
    await h.waitFor('confirmations', "dave's request", (r) => r.value['proposalId'] === 'p-newer');
    const expected = [...parkedByMallory, 'p-newer'].map(confirmationIdFor);

    const pages = await allPages(api, await h.session(USERS.alice));
    const seen = idsOf(pages);
    expect(seen).toContain(confirmationIdFor('p-newer'));
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]!.confirmations).toHaveLength(50);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...expected].sort());
    // Soonest expiry first: the newest is on the last page, last.
    expect(seen.at(-1)).toBe(confirmationIdFor('p-newer'));

    // The CLI follows the pages too.
    const cli = await runCaptured(
      ['pending', '--json', '--url', `http://127.0.0.1:${api}`, '--as', await h.session(DAVE)],
      { env: {} },
    );
    expect({ code: cli.code, err: cli.err }).toEqual({ code: 0, err: '' });
    const listed = JSON.parse(cli.out) as { confirmations: { confirmationId: string }[] };
    expect(listed.confirmations.map((c) => c.confirmationId).sort()).toEqual([...expected].sort());
  }, 180_000);

  it('bounds the work of a page the caller may see little of, and still moves on to the rest', async () => {
    // 250 confirmations of globex that gus may not see, then one he asked for, expiring last.
    const [template] = (
      await h.gate.runtime.store.confirmations.listPending('acme', { expiredUpToMs: 0, size: 1 })
    ).entries;
    const base = template!.pending!;
    const at = Date.now() + 10 * 60_000;
    const clone = (i: number, requestedBy: string): PendingConfirmation => ({
      ...base,
      tenant: 'globex',
      confirmationId: `conf_bulk_${String(i).padStart(4, '0')}`,
      proposalId: `p-bulk-${i}`,
      requestedBy,
      expiresAt: new Date(at + i).toISOString(),
    });
    const store = h.gate.runtime.store.confirmations;
    const others = Array.from({ length: 250 }, (_, i) => clone(i, 'mallory'));
    await Promise.all(others.map((p) => store.parkConfirmation(p, 20 * 60_000, p.proposalId)));
    const own = clone(250, GUS.subject);
    await store.parkConfirmation(own, 20 * 60_000, own.proposalId);

    const gus = await h.session(GUS);
    const first = await getPending(api, gus);
    expect(first.status).toBe(200);
    expect(first.body.confirmations).toEqual([]);
    expect(first.body.next).toEqual(expect.any(String));
    const pages = await allPages(api, gus);
    expect(idsOf(pages)).toEqual([own.confirmationId]);
    expect(pages.at(-1)!.next).toBeUndefined();

    // An approver of globex sees all 251, none twice, in pages of 100.
    const carol = idsOf(await allPages(api, await h.session(CAROL), 100));
    expect(carol).toEqual([...others, own].map((p) => p.confirmationId));
  }, 120_000);

  it('refuses a limit out of range and a cursor it did not give out, naming each', async () => {
    const alice = await h.session(USERS.alice);
    for (const query of ['?limit=0', '?limit=101', '?limit=ten', '?limit=1e2']) {
      const page = await getPending(api, alice, query);
      expect({ query, status: page.status }).toEqual({ query, status: 400 });
      expect(page.body).toMatchObject({ error: { code: 'invalid_limit' } });
    }
    const forged = Buffer.from('{"expiresAtMs":1}').toString('base64url');
    for (const cursor of ['not a cursor', forged, `${forged}=`, 'W10']) {
      const page = await getPending(api, alice, `?cursor=${encodeURIComponent(cursor)}`);
      expect({ cursor, status: page.status }).toEqual({ cursor, status: 400 });
      expect(page.body).toMatchObject({ error: { code: 'invalid_cursor' } });
    }
  });
});

describe('the approval API over HTTPS', () => {
  let dir: string;
  let h: GateHarness;
  let api: number;
  let cert: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolgate-approval-tls-'));
    cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    h = await startGateHarness({
      label: 'approval-tls',
      modules: [confirm],
      tap: ['confirmations'],
      env: { TOOLGATE_APPROVAL_TLS_CERT_FILE: cert, TOOLGATE_APPROVAL_TLS_KEY_FILE: key },
    });
    api = h.gate.ports[APPROVAL_PORT_NAME]!;
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers over HTTPS with the configured certificate, and the CLI trusts it with --ca', async () => {
    const answer = await new Promise<{ status: number; peer: string }>((resolve, reject) => {
      const req = httpsRequest(
        `https://127.0.0.1:${api}/pending`,
        { ca: readFileSync(cert) },
        (res) => {
          const peer = (res.socket as TLSSocket).getPeerCertificate();
          res.resume();
          resolve({ status: res.statusCode ?? 0, peer: String(peer.subject.CN) });
        },
      );
      req.once('error', reject);
      req.end();
    });
    expect(answer).toEqual({ status: 401, peer: '127.0.0.1' });

    const token = await h.session(USERS.alice);
    const url = `https://127.0.0.1:${api}`;
    const trusted = await runCaptured(['pending', '--url', url, '--as', token, '--ca', cert]);
    expect(trusted).toMatchObject({ code: 0, err: '' });
    expect(trusted.out).toBe('0 pending confirmations for tenant acme\n');
    const viaEnv = await runCaptured(['pending', '--as', token], {
      env: { TOOLGATE_APPROVAL_URL: url, TOOLGATE_APPROVAL_CA_FILE: cert },
    });
    expect(viaEnv.code).toBe(0);
    const untrusted = await runCaptured(['pending', '--url', url, '--as', token]);
    expect(untrusted.code).toBe(3);
    expect(untrusted.err).toMatch(
      /cannot reach the approval API .*--ca or TOOLGATE_APPROVAL_CA_FILE/,
    );
  });

  it('refuses plain HTTP on its port, and keeps /metrics on the plain metrics port', async () => {
    const plain = new Promise<number>((resolve, reject) => {
      const req = httpRequest(`http://127.0.0.1:${api}/pending`, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once('error', reject);
      req.end();
    });
    await expect(plain).rejects.toThrow();
    const metrics = h.gate.ports['confirm']!;
    expect((await fetch(`http://127.0.0.1:${metrics}/metrics`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${metrics}/pending`)).status).toBe(404);
  });
});
