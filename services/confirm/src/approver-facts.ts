/**
 * What the confirm stage asks about a waiting confirmation and one person: the requester's call
 * as it reads now, with its objects loaded live under the confirmation's tenant, and whether
 * policy lets that person approve it. The approvals consumer decides on it; `GET /pending` lists
 * only what its caller may approve (or asked for).
 */
import {
  authorizeApproval,
  referencesOf,
  requestedCallOf,
  toolOf,
  type PendingConfirmation,
  type Principal,
  type ResolvedObject,
} from '@toolgate/shared';
import type { StageDepsWith } from '@toolgate/platform';

/**
 * The requester's call of `pending` and its objects, loaded live under the confirmation's tenant
 * (undefined where one is gone); a refusal when this instance does not know the tool (a deploy
 * under way).
 */
export async function liveCallFacts(deps: StageDepsWith, pending: PendingConfirmation) {
  const { gate } = deps;
  const call = requestedCallOf(pending);
  const tool = toolOf(call, gate.registry);
  if (!tool.ok) return tool;
  const refs = referencesOf(call, tool.value);
  const loaded = await Promise.all(refs.map((ref) => gate.objects.load(pending.tenant, ref)));
  return { ok: true as const, call, tool: tool.value, loaded };
}

/**
 * {@link liveCallFacts} and the approver's permission. Policy sees the requester as the
 * confirmation recorded them.
 */
export async function approverFacts(
  deps: StageDepsWith,
  pending: PendingConfirmation,
  approver: Principal,
) {
  const facts = await liveCallFacts(deps, pending);
  if (!facts.ok) return facts;
  const { call, tool, loaded } = facts;
  const objects = loaded.filter((o): o is ResolvedObject => o !== undefined);
  const toolFacts = { name: tool.name, sideEffect: tool.spec.sideEffect };
  const approverAuthorized = authorizeApproval(
    approver,
    call.context,
    { tool: toolFacts, objects },
    deps.gate.policies,
  );
  return { ...facts, approverAuthorized };
}
