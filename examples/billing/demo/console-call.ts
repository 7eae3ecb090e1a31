/**
 * What the demo leaves for a person once its script has run and the system stays up: the confirm
 * stage restarted with the default 30-minute confirmation TTL (the script's 10 s would expire a
 * card before anyone could read it), then acme's agent asking, as alice, to approve this run's
 * second 25,000.00 EUR invoice. The call waits in the console's inbox; whatever a person decides
 * there comes back to the agent, and the demo prints it.
 */
import path from 'node:path';
import { AgentClientError } from '@toolgate/agent-client';
import type { Observation } from '@toolgate/shared';
import { anthropic } from '../fixtures/proposals.js';
import { openDemoClients, type DemoClients } from './demo-clients.js';
import { demoObjects } from './demo-objects.js';
import { REPO_ROOT, type DemoSettings } from './demo-settings.js';
import type { DemoSystem } from './demo-system.js';

/** The deployment confirm runs with while the demo is explored. */
export const EXPLORE_DEPLOYMENT_FILE = path.join(
  REPO_ROOT,
  'examples/billing/demo/toolgate.explore.config.ts',
);

/** A call left waiting for a person, and how to stop waiting for it. */
export interface ConsoleCall {
  readonly invoiceId: string;
  readonly proposalId: string;
  /** Resolves with the agent's terminal observation, or undefined once closed first. */
  readonly answered: Promise<Observation | undefined>;
  close(): Promise<void>;
}

/**
 * Restarts confirm for exploring and sends the call; resolves once it waits for a person (its
 * `pending_confirmation` observation has come back).
 */
export async function leaveCallForConsole(
  settings: DemoSettings,
  system: DemoSystem,
  signal: AbortSignal,
): Promise<ConsoleCall> {
  await system.restartConfirm(EXPLORE_DEPLOYMENT_FILE, signal);
  const clients = await openDemoClients(settings);
  const tag = settings.runTag;
  const invoiceId = demoObjects(tag).ids.consoleInvoice;
  const proposal = anthropic(
    { proposalId: `${tag}-console`, runId: `demo-${tag}-console`, requestId: `req-${tag}-console` },
    'approve_invoice',
    { invoice_id: invoiceId, status: 'approved', reason: 'Contract signed' },
  );
  let parked!: () => void;
  const waiting = new Promise<void>((resolve) => (parked = resolve));
  const answered = answer(clients, proposal, parked);
  await Promise.race([waiting, answered]);
  return {
    invoiceId,
    proposalId: proposal.proposalId,
    answered,
    close: () => clients.close(),
  };
}

async function answer(
  clients: DemoClients,
  proposal: ReturnType<typeof anthropic>,
  parked: () => void,
): Promise<Observation | undefined> {
  try {
    return await clients.agents.call(proposal, {
      session: clients.sessions.alice,
      // Longer than the confirmation waits, so its expiry is what the agent hears.
      timeoutMs: 2 * 3_600_000,
      onPending: parked,
    });
  } catch (error) {
    // Closing the clients at Ctrl-C ends the wait; anything else is the demo's to report.
    if (error instanceof AgentClientError && error.code === 'client_closed') return undefined;
    throw error;
  }
}
