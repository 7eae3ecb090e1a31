/**
 * The console's pages on the views the approval and analytics APIs publish (`PendingView`,
 * `DecidedView`, amend answers, the drill-down's events, approval health), served by a stand-in
 * that records what the console sends. Headless Chromium drives the pages; no gate runs here, so
 * every field of the contract can be shown in states a real run reaches only by timing (a call
 * that changed under its card, four eyes, a bulk of one run), beside the real-stack browser test.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecidedView, PendingView, Principal } from '@toolgate/shared';
import { launchChromium } from '../../../test/support/chromium.js';
import { startConsole, type ConsoleOptions, type RunningConsole } from './service.js';

const ALICE: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver', 'operator'] };
const TOKEN = `h.${Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 3600 })).toString('base64url')}.s`;
const verifier = {
  verify: (token: string | undefined) =>
    Promise.resolve(
      token === TOKEN
        ? ({ ok: true, value: ALICE } as const)
        : ({ ok: false, publicMessage: 'The session is not valid.' } as const),
    ),
} as unknown as ConsoleOptions['verifier'];

const later = () => new Date(Date.now() + 20 * 60_000).toISOString();

/** A waiting refund as the approval API's view shows it to alice. */
function view(id: string, overrides: Partial<PendingView> = {}): PendingView {
  const card = {
    action: 'Refund payment',
    target: 'pay_11 (50.00 EUR)',
    effect: 'refund 20.00 EUR',
    preview: null,
    changes: [{ field: 'refunded', before: '0.00 EUR', after: '20.00 EUR' }],
  };
  return {
    confirmationId: id,
    proposalId: `p-${id}`,
    runId: 'run-7',
    tenant: 'acme',
    requestedBy: 'dave',
    tool: 'refund_payment',
    card,
    digest: `digest-${id}`,
    expiresAt: later(),
    args: { payment_id: 'pay_11', amount_cents: 2000 },
    rule: 'Every refund waits for a person.',
    policyVersion: 'policies@4f2a',
    fourEyes: true,
    caller: { mayDecide: true, isRequester: false },
    live: { state: 'same', card, digest: `digest-${id}` },
    ...overrides,
  };
}

const PENDING: PendingView[] = [
  view('c_same'),
  view('c_bulk', { args: { payment_id: 'pay_11', amount_cents: 500 } }),
  view('c_changed', {
    runId: 'run-8',
    live: { state: 'changed', card: view('x').card, digest: 'digest-now' },
  }),
  view('c_viewer', { runId: 'run-9', caller: { mayDecide: false, isRequester: false } }),
  view('c_own', {
    runId: 'run-10',
    requestedBy: 'alice',
    caller: { mayDecide: false, isRequester: true },
  }),
  view('c_markup', {
    runId: 'run-11',
    card: { ...view('x').card, target: '<img src=x id=injected onerror="document.title=1">' },
  }),
];

const DECIDED: DecidedView[] = [
  {
    confirmationId: 'c_old',
    proposalId: 'p-old',
    runId: 'run-1',
    tenant: 'acme',
    tool: 'refund_payment',
    requestedBy: 'dave',
    card: view('x').card,
    outcome: 'rejected',
    decidedBy: 'alice',
    decidedAt: new Date().toISOString(),
    reason: 'Not expected in this run',
  },
];

interface Posted {
  readonly url: string;
  readonly body: Record<string, unknown>;
}

let upstream: Server;
let web: RunningConsole;
let browser: Browser;
const posted: Posted[] = [];

function respond(url: string): { status: number; body: unknown } {
  const now = new Date();
  const start = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const window = (size: 'minute' | 'hour', ms: number) => ({
    start: new Date(Math.floor(now.getTime() / ms) * ms).toISOString(),
    end: new Date(Math.floor(now.getTime() / ms) * ms + ms).toISOString(),
    size,
    state: 'live',
    rows: [
      {
        tenant: 'acme',
        tool: 'refund_payment',
        rung: 'authorization',
        code: 'not_authorized',
        disposition: 'deny',
        count: 3,
      },
      {
        tenant: 'acme',
        tool: 'refund_payment',
        rung: 'confirmation',
        code: 'pending',
        disposition: 'confirm',
        count: 9,
      },
    ],
    late: 0,
    topRefusedPrincipals: [{ id: 'bob', tenant: 'acme', refusals: 3 }],
    topRefusedRuns: [{ id: 'run-5', tenant: 'acme', refusals: 3 }],
  });
  if (url.startsWith('/pending'))
    return { status: 200, body: { tenant: 'acme', confirmations: PENDING } };
  if (url.startsWith('/decided'))
    return { status: 200, body: { tenant: 'acme', confirmations: DECIDED } };
  if (url.startsWith('/analytics/windows?size=hour'))
    return { status: 200, body: { size: 'hour', windows: [window('hour', 3_600_000)] } };
  if (url.startsWith('/analytics/windows'))
    return { status: 200, body: { size: 'minute', windows: [window('minute', 60_000)] } };
  if (url.startsWith('/analytics/alerts')) {
    const alert = {
      alertId: 'a1',
      rule: 'authorization_probing',
      subject: { kind: 'principal', tenant: 'acme', id: 'bob' },
      window: { start: start.toISOString(), end: now.toISOString() },
      counts: { refusals: 7 },
      threshold: { refusals: 5 },
      mode: 'alert',
      evidence: [],
      raisedAt: now.toISOString(),
    };
    return { status: 200, body: { alerts: [alert] } };
  }
  if (url.startsWith('/analytics/approvals')) {
    return {
      status: 200,
      body: {
        since: start.toISOString(),
        until: now.toISOString(),
        parked: 12,
        approved: 9,
        rejected: 2,
        expired: 1,
        changed: 0,
        approvalRate: 0.75,
        medianDecideMs: 42_000,
      },
    };
  }
  if (url.startsWith('/analytics/events')) {
    return {
      status: 200,
      body: {
        complete: true,
        events: [
          {
            eventId: 'e1',
            at: now.toISOString(),
            kind: 'rejected',
            tenant: 'acme',
            tool: 'refund_payment',
            rung: 'authorization',
            code: 'not_authorized',
            disposition: 'deny',
            subject: 'bob',
            runId: 'run-5',
            proposalId: 'p-5',
            confirmationId: null,
            publicMessage: 'This action is not allowed.',
            internalDetail: 'denied by viewers-never-write',
          },
        ],
      },
    };
  }
  return { status: 404, body: { error: { code: 'not_found', message: 'No such resource.' } } };
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST') {
        posted.push({ url: req.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
        const amend = req.url?.endsWith('/amend') === true;
        res.statusCode = amend ? 200 : 202;
        res.end(
          JSON.stringify(
            amend
              ? {
                  confirmationId: 'c_same',
                  decision: 'reject',
                  replacement: { proposalId: 'p-new', runId: 'run-7' },
                }
              : { ok: true },
          ),
        );
        return;
      }
      if (req.url?.startsWith('/analytics/stream')) {
        res.setHeader('content-type', 'text/event-stream');
        res.write(': open\n\n');
        return;
      }
      const answer = respond(req.url ?? '');
      res.statusCode = answer.status;
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  web = await startConsole({
    port: 0,
    approvalUrl: url,
    analyticsUrl: url,
    verifier,
    pendingPollMs: 300,
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
});

async function signedInPage(path: string, width = 1280): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  // Before signing in the page asks who is signed in and is told 401: that one is expected.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.location().url.endsWith('/api/session')) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(new URL(path, web.url).href);
  await page.getByLabel('Session token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Signed in as').waitFor();
  return { page, errors };
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** Serious and critical axe violations of the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> };
      }
    ).axe.run(),
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id);
}

/** The page's width in CSS pixels, scrolled content included. */
const pageWidth = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );

const cardOf = (page: Page, id: string) => page.locator(`article[data-confirmation-id="${id}"]`);
const approveOf = (page: Page, id: string) =>
  cardOf(page, id).getByRole('button', { name: 'Approve', exact: true });

describe('the inbox on the approval views', () => {
  it('shows what a card says and what the caller may do with it', async () => {
    const { page } = await signedInPage('/');
    await cardOf(page, 'c_same').waitFor();
    const same = (await cardOf(page, 'c_same').textContent()) ?? '';
    for (const shown of [
      'Every refund waits for a person.',
      'policies@4f2a',
      'run-7',
      'dave',
      '"amount_cents": 2000',
      'Four eyes: the person who asked cannot approve it.',
    ]) {
      expect(same).toContain(shown);
    }
    const change = cardOf(page, 'c_same').getByRole('row', { name: /refunded/ });
    expect(await change.textContent()).toBe('refunded0.00 EUR20.00 EUR');
    expect(await approveOf(page, 'c_same').isEnabled()).toBe(true);

    expect(await cardOf(page, 'c_changed').getByRole('alert').textContent()).toContain(
      'This call changed since it was shown',
    );
    expect(await approveOf(page, 'c_changed').isDisabled()).toBe(true);
    expect(await approveOf(page, 'c_viewer').count()).toBe(0);
    expect(await cardOf(page, 'c_viewer').getByRole('button', { name: 'Reject…' }).count()).toBe(0);
    expect(await approveOf(page, 'c_own').count()).toBe(0);
    expect(await cardOf(page, 'c_own').textContent()).toContain(
      'you asked for this call, so someone else must approve it',
    );

    // Model-chosen text is text: no element is made of it.
    expect(await cardOf(page, 'c_markup').textContent()).toContain('<img src=x id=injected');
    expect(await page.locator('#injected').count()).toBe(0);
  });

  it('approves the shown digest, rejects with a reason, and sends changed arguments as a new proposal', async () => {
    posted.length = 0;
    const { page, errors } = await signedInPage('/');
    await approveOf(page, 'c_same').click();
    await expect
      .poll(() => posted.at(-1))
      .toEqual({ url: '/confirmations/c_same/approve', body: { digest: 'digest-c_same' } });

    await cardOf(page, 'c_same').getByRole('button', { name: 'Reject…' }).click();
    const reject = page.getByRole('dialog');
    await reject.getByRole('button', { name: 'Reject' }).click();
    expect(await reject.getByRole('alert').textContent()).toContain('Choose or write a reason');
    await reject.getByLabel('Not expected in this run').check();
    await reject.getByLabel('In your words').fill('run 7 is a test');
    await reject.getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => posted.at(-1))
      .toEqual({
        url: '/confirmations/c_same/reject',
        body: { digest: 'digest-c_same', reason: 'Not expected in this run: run 7 is a test' },
      });

    await cardOf(page, 'c_same').getByRole('button', { name: 'Approve with changes…' }).click();
    const amend = page.getByRole('dialog');
    expect(await amend.textContent()).toContain('The changed call is a new proposal');
    await amend
      .getByLabel('Arguments (JSON)')
      .fill('{"payment_id": "pay_11", "amount_cents": 1000}');
    await amend.getByRole('button', { name: 'Send as a new proposal' }).click();
    await expect
      .poll(() => posted.at(-1))
      .toEqual({
        url: '/confirmations/c_same/amend',
        body: { digest: 'digest-c_same', args: { payment_id: 'pay_11', amount_cents: 1000 } },
      });
    await cardOf(page, 'c_same').getByText('it waits for its own approval').waitFor();
    expect(errors).toEqual([]);
  });

  it('decides calls of one run and one tool in bulk, after a preview', async () => {
    posted.length = 0;
    const { page } = await signedInPage('/');
    await cardOf(page, 'c_same').getByRole('checkbox').check();
    // Another run: the page refuses to add it to the selection.
    await cardOf(page, 'c_changed').getByRole('checkbox').click();
    expect(await cardOf(page, 'c_changed').getByRole('checkbox').isChecked()).toBe(false);
    await cardOf(page, 'c_bulk').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Decide selected…' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByRole('listitem').count()).toBe(2);
    await dialog.getByRole('button', { name: 'Decide' }).click();
    await expect
      .poll(() => posted.map((p) => p.url).sort())
      .toEqual(['/confirmations/c_bulk/approve', '/confirmations/c_same/approve']);
    await page.getByText('2 of 2 approvals sent.').waitFor();
    expect(await cardOf(page, 'c_same').getByRole('checkbox').isChecked()).toBe(false);
  });

  it('lists the history, filtered, and reads at 375 px without scrolling sideways', async () => {
    const { page } = await signedInPage('/', 375);
    await page.locator('#history-list li[data-confirmation-id="c_old"]').waitFor();
    expect(await page.locator('#history-list').textContent()).toContain(
      'Reason: Not expected in this run',
    );
    await page.getByLabel('Outcome').selectOption('approved');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('Nothing decided matches.').waitFor();
    await cardOf(page, 'c_same').waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('the dashboard on the analytics views', () => {
  it('counts refusals only, shows approval health, and drills down to the events with their detail', async () => {
    const { page, errors } = await signedInPage('/dashboard');
    const row = page.locator(
      '[data-size="minute"] [data-dimension="code"] tr[data-value="not_authorized"]',
    );
    await row.waitFor();
    expect(
      await page
        .locator('[data-size="minute"] [data-dimension="code"] tr[data-value="pending"]')
        .count(),
    ).toBe(0);
    expect(await page.locator('[data-total="minute"]').textContent()).toBe('3');
    expect(await page.locator('#approval-health').textContent()).toContain('75 %');
    await page.getByText('principal bob: refusals 7 (threshold 5)').waitFor();
    await row.getByRole('button').click();
    await page.getByText('Internal detail: denied by viewers-never-write').waitFor();
    expect(await page.locator('#drill-body').textContent()).toContain(
      'Told the agent: This action is not allowed.',
    );
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('reads at 375 px without scrolling sideways', async () => {
    const { page } = await signedInPage('/dashboard', 375);
    await page
      .locator('[data-size="hour"] [data-dimension="code"] tr[data-value="not_authorized"]')
      .waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
  });
});

describe('the sign-in page', () => {
  it('has an accessible form and development sign-ins only when configured', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const page = await context.newPage();
    await page.goto(web.url);
    await page.getByLabel('Session token').waitFor();
    expect(await page.getByText('Development sign-in').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    await context.close();
  });
});
