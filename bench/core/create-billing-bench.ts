/**
 * The billing example as the benchmark runs it: its gate, a session token per user (real HS256,
 * minted once, so the verifier's cache is exercised exactly as in a run) and the clock of a pass.
 */
import { createGate, mintSession, type Gate } from '@toolgate/shared';
import {
  billingDeployment,
  EXAMPLE_SESSION_ISSUER,
} from '../../examples/billing/toolgate.config.js';
import { USERS } from '../../examples/billing/data.js';
import { MIX_REPAIR_BUDGET, type MixEntry, type UserName } from './build-mix.js';

/**
 * The example as a demo (the published secret) unless TOOLGATE_SESSION_SECRET names another, with
 * the mix's repair budget.
 */
const example = billingDeployment({ ...process.env, TOOLGATE_DEMO_SESSIONS: '1' });
const deployment = {
  ...example,
  ceilings: { ...example.ceilings, repairAttempts: MIX_REPAIR_BUDGET },
};

/** The start of every pass over the mix; the tokens are valid for an hour from here. */
export const PASS_START = new Date('2026-11-29T12:00:00Z');

/** Everything a measurement needs besides the mix. */
export interface BillingBench {
  readonly gate: Gate;
  /** The deployment's session secret (the example's, unless TOOLGATE_SESSION_SECRET is set). */
  readonly secret: string;
  readonly tokens: Readonly<Record<UserName, string>>;
}

/** Builds the gate once and mints one token per user. */
export async function createBillingBench(): Promise<BillingBench> {
  const secret = deployment.sessions.secret;
  if (secret === undefined) throw new Error('the billing example must use an HS256 secret');
  const mint = (user: UserName) =>
    mintSession(USERS[user], secret, {
      now: PASS_START,
      ttlSeconds: 3600,
      issuer: EXAMPLE_SESSION_ISSUER,
    });
  const [alice, bob, carol] = await Promise.all([mint('alice'), mint('bob'), mint('carol')]);
  return { gate: createGate(deployment), secret, tokens: { alice, bob, carol } };
}

/** The instant each entry arrives within a pass, built once so the timed loops allocate none. */
export function arrivalsOf(mix: readonly MixEntry[]): Date[] {
  return mix.map((e) => new Date(PASS_START.getTime() + e.offsetMs));
}
