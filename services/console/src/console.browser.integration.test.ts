/**
 * The console in a real browser against the real stack: the four gate stages with the billing
 * example's tools and data, its tool worker, the analytics service, an agent of acme, and the
 * console in front of the approval and analytics APIs. Headless Chromium (Debian's) is driven by
 * playwright-core; axe-core checks each page. Screenshots go to a temporary directory, or to
 * TOOLGATE_SCREENSHOT_DIR (`npm run docs:screenshots` writes the docs' images).
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { createAgentClient, type AgentClient } from '@toolgate/agent-client';
import { superviseAnalytics, type SupervisedAnalytics } from '@toolgate/analytics';
import * as authorize from '@toolgate/authorize';
import * as confirm from '@toolgate/confirm';
import * as execute from '@toolgate/execute';
import {
  ANALYTICS_PRINCIPAL,
  APPROVAL_PORT_NAME,
  createGateWithSessionKeys,
  SILENT_LOGGER,
} from '@toolgate/platform';
import { confirmationIdFor, type Observation, type Principal } from '@toolgate/shared';
import { startToolWorker, type ToolWorker } from '@toolgate/tool-worker';
import * as validate from '@toolgate/validate';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USERS } from '../../../examples/billing/data.js';
import { openaiChat } from '../../../examples/billing/fixtures/proposals.js';
import { createBillingHandlers } from '../../../examples/billing/tool-handlers.js';
import billing from '../../../examples/billing/toolgate.config.js';
import { agentOptionsIn } from '../../../test/support/agent-options.js';
import { launchChromium } from '../../../test/support/chromium.js';
import {
  gateEnv,
  identityEnv,
  startGateHarness,
  type GateHarness,
} from '../../../test/support/gate-harness.js';
import { workerEnv } from '../../../test/support/tool-worker-harness.js';
import { startConsole, type RunningConsole } from './service.js';

/** A key-source log that says nothing. */
const QUIET = { info: () => undefined, warn: () => undefined } as unknown as Parameters<
  typeof createGateWithSessionKeys
>[2];

/** acme's operator: reads analytics, with the internal detail of drill-down events. */
const OLGA: Principal = { subject: 'olga', tenant: 'acme', roles: ['operator'] };

const screenshots =
  process.env['TOOLGATE_SCREENSHOT_DIR'] ?? mkdtempSync(path.join(tmpdir(), 'toolgate-console-'));
const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

let h: GateHarness;
let worker: ToolWorker;
let analytics: SupervisedAnalytics;
let agent: AgentClient;
let agentAs: Principal = USERS.alice;
let web: RunningConsole;
let browser: Browser;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  h = await startGateHarness({
    label: 'console',
    modules: [validate, authorize, confirm, execute],
    deployment: billing,
    tap: ['confirmations', 'audit', 'commands.send_email', 'commands.approve_invoice'],
  });
  worker = await startToolWorker({
    env: workerEnv(h.ns),
    name: 'billing',
    tools: createBillingHandlers(h.gate.runtime.objects),
    logger: SILENT_LOGGER,
  });
  analytics = await superviseAnalytics({
    env: {
      ...gateEnv(h.ns, { TOOLGATE_LOG_LEVEL: 'silent', TOOLGATE_ANALYTICS_TICK_MS: '200' }),
      ...identityEnv(ANALYTICS_PRINCIPAL),
    },
    deployment: billing,
    exit: () => undefined,
    process: new EventEmitter(),
  });
  agent = await createAgentClient({
    ...agentOptionsIn(h.ns, 'acme'),
    session: () => h.session(agentAs),
  });
  for (const who of [USERS.alice, USERS.bob, OLGA]) tokens[who.subject] = await h.session(who);
  web = await startConsole({
    port: 0,
    approvalUrl: `http://127.0.0.1:${h.gate.ports[APPROVAL_PORT_NAME]}`,
    analyticsUrl: `http://127.0.0.1:${analytics.port}`,
    verifier: createGateWithSessionKeys(billing, {}, QUIET).verifier,
    devSignIns: [
      { label: 'bob (acme viewer)', token: tokens['bob']! },
      { label: 'olga (acme operator)', token: tokens['olga']! },
    ],
    pendingPollMs: 500,
  });
  browser = await launchChromium();
  mkdirSync(screenshots, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await agent?.close();
  await analytics?.lifecycle.stop('test over');
  await worker?.stop();
  await h?.close();
});

/** HTTP failures the pages expect and show in words; the rest are console errors. */
function expected(message: ConsoleMessage): boolean {
  const url = message.location().url;
  if (!message.text().startsWith('Failed to load resource')) return false;
  // Before signing in, the page asks who is signed in and is told 401.
  return url.endsWith('/api/session');
}

/** A desktop-wide page that records console errors and uncaught exceptions. */
async function openPage(
  width = 1280,
): Promise<{ page: Page; errors: string[]; context: BrowserContext }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !expected(m)) errors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  return { page, errors, context };
}

/** Signs in by pasting `token` on the sign-in form. */
async function signInWithToken(page: Page, token: string, at = '/'): Promise<void> {
  await page.goto(new URL(at, web.url).href);
  await page.getByLabel('Session token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Signed in as').waitFor();
}

/** Signs in with the development sign-in labelled `label`. */
async function signInAsDeveloper(page: Page, label: string, at = '/'): Promise<void> {
  await page.goto(new URL(at, web.url).href);
  await page.getByRole('button', { name: `Development sign-in: ${label}` }).click();
  await page.getByText('Signed in as').waitFor();
}

/** Serious and critical axe violations of the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const run = (globalThis as unknown as { axe: { run(): Promise<AxeResult> } }).axe.run();
    return run;
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

interface AxeResult {
  violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
}

/** Approves `confirmationId` through the console as the page's signed-in person; the status. */
function approveFromPage(page: Page, confirmationId: string, digest: string): Promise<number> {
  return page.evaluate(
    async ({ confirmationId, digest }) => {
      const session = (await (await fetch('/api/session')).json()) as { csrf: string };
      const response = await fetch(`/api/confirmations/${confirmationId}/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolgate-csrf': session.csrf },
        body: JSON.stringify({ digest }),
      });
      return response.status;
    },
    { confirmationId, digest },
  );
}

/**
 * Waits until an approval the console relayed (answered `status`) was refused: by the approval
 * API at once (4xx), or, accepted (202), by the approvals consumer, which audits the refusal.
 */
async function refused(status: number, confirmationId: string, by: string): Promise<void> {
  expect([202, 400, 403, 404, 409, 410]).toContain(status);
  if (status !== 202) return;
  await h.waitFor(
    'audit',
    `the refusal of ${by}'s approval of ${confirmationId}`,
    (r) =>
      r.value['confirmationId'] === confirmationId &&
      r.value['kind'] === 'rejected' &&
      r.value['decidedBy'] === by,
  );
}

/** The card of `proposalId` on the inbox. */
const cardOf = (page: Page, proposalId: string) =>
  page.locator(`article[data-confirmation-id="${confirmationIdFor(proposalId)}"]`);

/** Proposes `tool` with `args` as `who` through the agent; resolves with its terminal observation. */
function propose(who: Principal, proposalId: string, tool: string, args: Record<string, unknown>) {
  agentAs = who;
  const proposal = openaiChat({ proposalId, runId: `run-${proposalId}` }, tool, args);
  return agent.call(proposal, { timeoutMs: 60_000 });
}

/** Resolves once the confirm stage parked `proposalId`. */
async function parked(proposalId: string): Promise<void> {
  await h.waitFor(
    'confirmations',
    `the confirmation of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId,
  );
}

describe('the console in a browser', () => {
  it('shows an approver a call parked after the page loaded, and approving it runs the call', async () => {
    const { page, errors, context } = await openPage();
    await signInWithToken(page, tokens['alice']!);
    await expect.poll(() => page.locator('#pending-status').textContent()).toBe('Live.');

    const observed: Promise<Observation> = propose(
      USERS.alice,
      'console-invoice',
      'approve_invoice',
      {
        invoice_id: 'inv_482',
        status: 'approved',
      },
    );
    const card = cardOf(page, 'console-invoice');
    await card.waitFor({ timeout: 30_000 });
    await expect.poll(() => card.textContent()).toContain('inv_482 (25,000.00 EUR)');
    expect(await card.textContent()).toContain('run-console-invoice');
    const text = await card.textContent();
    expect(text).toContain('Arguments as they will run');
    expect(text).toContain('"invoice_id": "inv_482"');
    expect(text).toContain('Policy version');
    expect(text).toContain('Rule');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(screenshots, 'console-inbox.png') });

    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect
      .poll(() => page.locator('#decision-status').textContent())
      .toBe(
        'Approve invoice inv_482 (25,000.00 EUR): Approval sent; the gate checks it and runs the call.',
      );
    const observation = await observed;
    expect(observation).toMatchObject({ proposalId: 'console-invoice', outcome: 'result' });
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('shows a viewer no approve button, and the gate refuses the viewer who approves anyway', async () => {
    agentAs = USERS.alice;
    const email = openaiChat(
      { proposalId: 'console-email', runId: 'run-console-email' },
      'send_email',
      {
        draft_id: 'draft_7',
      },
    );
    // Submitted only: the call waits for a person for the rest of this file.
    await agent.submit(email);
    await parked('console-email');
    const id = confirmationIdFor('console-email');
    const [request] = h
      .seen('confirmations')
      .filter((r) => r.value['proposalId'] === 'console-email');
    const digest = String(request!.value['digest']);

    const { page, errors, context } = await openPage();
    await signInAsDeveloper(page, 'bob (acme viewer)');
    await expect.poll(() => page.locator('#pending-status').textContent()).toBe('Live.');
    // bob may not decide it: either the card is not his to see, or it shows without an approve button.
    expect(
      await cardOf(page, 'console-email')
        .getByRole('button', { name: 'Approve', exact: true })
        .count(),
    ).toBe(0);

    const answer = await approveFromPage(page, id, digest);
    // Refused at once, or accepted for the approvals consumer, which refuses it: either way the
    // call stays pending and does not run.
    await refused(answer, id, 'bob');
    const pending = await fetch(`http://127.0.0.1:${h.gate.ports[APPROVAL_PORT_NAME]}/pending`, {
      headers: { authorization: `Bearer ${tokens['alice']}` },
    }).then((r) => r.json() as Promise<{ confirmations: { confirmationId: string }[] }>);
    expect(pending.confirmations.map((c) => c.confirmationId)).toContain(id);
    expect(h.seen('commands.send_email')).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('disables a card that expires and moves it to the history', async () => {
    const store = h.gate.runtime.store.confirmations;
    const [template] = (await store.listPending('acme', { expiredUpToMs: 0, size: 1 })).entries;
    const base = template!.pending!;
    const { page, errors, context } = await openPage(375);
    await signInWithToken(page, tokens['alice']!);
    const short = {
      ...base,
      confirmationId: 'conf_console_short_ttl',
      proposalId: 'console-short-ttl',
      runId: 'run-console-short-ttl',
      expiresAt: new Date(Date.now() + 8_000).toISOString(),
    };
    await store.parkConfirmation(short, 60_000, short.proposalId);
    const card = page.locator('article[data-confirmation-id="conf_console_short_ttl"]');
    await card.waitFor({ timeout: 15_000 });
    await expect.poll(() => card.textContent()).toMatch(/Expires in\d+ s/);
    const approve = card.getByRole('button', { name: 'Approve', exact: true });
    expect(await approve.isEnabled()).toBe(true);
    await page
      .locator('article.card.expired[data-confirmation-id="conf_console_short_ttl"]')
      .waitFor({ timeout: 15_000 });
    expect(await approve.isDisabled()).toBe(true);
    const inHistory = page.locator(
      '#history-list li[data-confirmation-id="conf_console_short_ttl"]',
    );
    await inHistory.waitFor();
    expect(await inHistory.textContent()).toContain('expired');
    await card.waitFor({ state: 'detached' });

    // A page that kept the card anyway cannot approve it: the gate refuses, nothing runs.
    const answer = await approveFromPage(page, short.confirmationId, short.digest);
    await refused(answer, short.confirmationId, 'alice');
    expect(
      h.seen('commands.approve_invoice').filter((r) => r.value['proposalId'] === short.proposalId),
    ).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows a refusal on the dashboard within five seconds of its proposal', async () => {
    const { page, errors, context } = await openPage();
    await signInAsDeveloper(page, 'olga (acme operator)', '/dashboard');
    await expect.poll(() => page.locator('#dashboard-status').textContent()).toBe('Live.');

    const refused = page.locator(
      '[data-size="hour"] [data-dimension="code"] tr[data-value="unknown_tool"]',
    );
    const proposedAt = Date.now();
    const observed = propose(USERS.alice, 'console-refused', 'wire_money', { amount: 1_000_000 });
    await refused.waitFor({ timeout: 5_000 });
    expect(Date.now() - proposedAt).toBeLessThan(5_000);
    expect(await observed).toMatchObject({ outcome: 'rejected', code: 'unknown_tool' });

    // More refusals for a dashboard that shows something: a viewer trying to write, twice.
    for (const n of [1, 2]) {
      await propose(USERS.bob, `console-bob-${n}`, 'approve_invoice', {
        invoice_id: 'inv_481',
        status: 'approved',
      });
    }
    await page
      .locator('[data-size="hour"] [data-dimension="code"] tr[data-value="not_authorized"]')
      .waitFor();
    await refused.getByRole('button').click();
    const drill = page.locator('#drill-body');
    await drill.getByText('wire_money').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: path.join(screenshots, 'console-dashboard.png'),
      fullPage: true,
    });
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
