/**
 * The confirm stage's tests play the authorize stage: they authorize proposals with the core
 * functions and write tagged `authorized` envelopes, as it would.
 */
import {
  authorizedEnvelope,
  authorizeProposal,
  integrityTag,
  INTEGRITY_HEADER,
  referencesOf,
  toolOf,
  validateProposal,
  type AuthorizedEnvelope,
  type Principal,
  type Proposal,
} from '@toolgate/shared';
import type { GateHarness } from './gate-harness.js';

/** The `authorized` envelope the authorize stage would write for `who`'s `proposal`, now. */
export async function authorizedFor(
  h: GateHarness,
  who: Principal,
  proposal: Proposal,
): Promise<AuthorizedEnvelope> {
  const g = h.gate.runtime.gate;
  const limits = { maxBytes: g.ceilings.argumentBytes, maxDepth: g.ceilings.maxDepth };
  const facts = { registry: g.registry, limits, repairBudget: g.ceilings.repairAttempts };
  const v = validateProposal(proposal, who, facts);
  if (!v.ok) throw new Error(`${proposal.proposalId} did not validate`);
  const tool = toolOf(v.value, g.registry);
  if (!tool.ok) throw new Error(`${proposal.proposalId}: no tool`);
  const refs = referencesOf(v.value, tool.value);
  const loaded = await Promise.all(refs.map((r) => g.objects.load(who.tenant, r)));
  const a = authorizeProposal(v.value, tool.value, loaded, g);
  if (!a.ok) throw new Error(`${proposal.proposalId} was not authorized`);
  return authorizedEnvelope(a.value, new Date().toISOString());
}

/** Writes `env` to the authorized topic in the wire format, tagged as the gate tags it. */
export async function sendAuthorized(h: GateHarness, env: AuthorizedEnvelope, tag?: string) {
  const topic = h.topic('authorized');
  const stamped = { ...env, issuedAt: env.issuedAt ?? new Date().toISOString() };
  const bytes = await h.gate.runtime.codec.encode(`${topic}-value`, stamped);
  const integrity = tag ?? integrityTag(h.gate.config.integrityKey, topic, bytes);
  await h.send('authorized', env.runId, bytes, { [INTEGRITY_HEADER]: integrity });
}
