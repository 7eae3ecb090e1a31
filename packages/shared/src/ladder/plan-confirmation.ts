/**
 * The confirm rung's first question: must a person approve this call, and if so, what exactly
 * do they see? The card and its digest are built from the resolved, live objects.
 */
import { confirmationDigest, needsConfirmation } from '../confirmation/index.js';
import type { Tool } from '../tools/index.js';
import type { CardWithChanges } from '../types.js';
import { byId } from './authorize-proposal.js';
import type { AuthorizedProposal, ConfirmationPlan } from './validated.js';

/** Decides whether `a` needs confirmation and builds its card and digest when it does. */
export function planConfirmation(a: AuthorizedProposal, tool: Tool): ConfirmationPlan {
  const objects = byId(a.objects);
  // A replay re-issues an outcome a person already allowed (or that needed nobody): no effect.
  if (a.replay === true || !needsConfirmation(tool.spec, a.args, objects)) return { needed: false };
  // A definition that can need confirmation has a card builder: the registry refuses it otherwise.
  const card = tool.spec.card!(a.args, objects);
  return { needed: true, card, digest: digestOf(a, card) };
}

/**
 * The digest a person approves: tool, arguments, object ids and versions, the card, tenant and
 * policy version. The whole card is hashed, not only its preview, so that a change to what the
 * person read (the target or effect line, a change's before or after) is a change of content; a
 * card without `changes` hashes as cards did before they could carry them.
 */
export function digestOf(a: AuthorizedProposal, card: CardWithChanges): string {
  return confirmationDigest({
    tool: a.tool,
    args: a.args,
    objects: a.objects.map(({ type, id, version }) => ({ type, id, version })),
    preview: card,
    tenant: a.context.tenant,
    policyVersion: a.policyVersion,
  });
}
