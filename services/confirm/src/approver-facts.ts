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
import type { StageDeps } from '@toolgate/platform';

/**
 * The live call and the approver's permission; a refusal when this instance does not know the
 * tool (a deploy under way). Policy sees the requester as the confirmation recorded them.
 */
export async function approverFacts(
  deps: StageDeps,
  pending: PendingConfirmation,
  approver: Principal,
) {
  const { gate } = deps;
  const call = requestedCallOf(pending);
  const tool = toolOf(call, gate.registry);
  if (!tool.ok) return tool;
  const refs = referencesOf(call, tool.value);
  const loaded = await Promise.all(refs.map((ref) => gate.objects.load(pending.tenant, ref)));
  const objects = loaded.filter((o): o is ResolvedObject => o !== undefined);
  const toolFacts = { name: tool.value.name, sideEffect: tool.value.spec.sideEffect };
  const approverAuthorized = authorizeApproval(
    approver,
    call.context,
    { tool: toolFacts, objects },
    gate.policies,
  );
  return { ok: true as const, call, tool: tool.value, loaded, approverAuthorized };
}
