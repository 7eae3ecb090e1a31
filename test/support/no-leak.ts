/**
 * The one check that a refusal tells an agent's model (or an approver) nothing it must not know:
 * DESIGN §1 "no stack traces, no policy text, no object owner, no other tenant's identifiers".
 */
import { expect } from 'vitest';

/**
 * What every public message must keep to itself, whatever the deployment: words of the policy
 * language, and the word "policy" in prose (the code `policy_error` is public, so this applies to
 * the message texts only).
 */
const POLICY_WORDS = ['permit', 'forbid', 'principal', 'resource'];
const PROSE_ONLY = ['policy'];

/** Fields that echo what the agent itself sent: whatever they hold, the gate told nothing. */
const ECHOED = ['proposalId', 'runId', 'requestId', 'callId'];

/** The observation without the fields that only echo the agent's own ids. */
function writtenByTheGate(observation: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(observation).filter(([name]) => !ECHOED.includes(name)));
}

/** The texts of an observation that are written for the model to read. */
function publicTexts(observation: Readonly<Record<string, unknown>>): string[] {
  const repair = observation['repair'] as { prompt?: unknown } | undefined;
  return [observation['message'], repair?.prompt].filter((t): t is string => typeof t === 'string');
}

/**
 * Asserts that `observation` (an observation or a confirmation request, as published) leaks
 * nothing: no `internalDetail`; none of `secrets` (the deployment's other tenant, its people and
 * objects, role and policy names, and what the test adds: a policy version, an idempotency key)
 * nor the policy language's words anywhere the gate wrote them (the ids the agent sent, echoed
 * back, aside), case ignored; and no mention of policy in the texts the model reads.
 */
export function expectNoLeak(
  observation: Readonly<Record<string, unknown>>,
  secrets: readonly string[],
): void {
  const whole = JSON.stringify(writtenByTheGate(observation)).toLowerCase();
  expect(whole).not.toContain('internaldetail');
  for (const secret of [...secrets, ...POLICY_WORDS]) {
    expect(whole, `the observation names "${secret}"`).not.toContain(secret.toLowerCase());
  }
  for (const text of publicTexts(observation)) {
    for (const word of PROSE_ONLY) {
      expect(text.toLowerCase(), `the public text names "${word}"`).not.toContain(word);
    }
  }
}
