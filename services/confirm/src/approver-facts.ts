/**
 * What the confirm stage asks about a waiting confirmation and one person: the requester's call
 * as it reads now, with its objects loaded live under the confirmation's tenant, and whether
 * policy lets that person approve it. The approvals consumer decides on it; `GET /pending` shows
 * only what its caller may approve (or asked for), with the call rebuilt as it would run now.
 */
import {
  accept,
  authorizeApproval,
  reauthorizeForApproval,
  referencesOf,
  requestedCallOf,
  toolOf,
  type PendingConfirmation,
  type Principal,
  type RebuiltCall,
  type ResolvedObject,
  type Step,
  type Tool,
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
  const approval = approvalRequestOf(tool, loaded);
  const approverAuthorized = authorizeApproval(
    approver,
    call.context,
    approval,
    deps.gate.policies,
  );
  return { ...facts, approverAuthorized };
}

/**
 * The requester's call of `pending` rebuilt for `caller` to look at: `reauthorizeForApproval` on
 * its live objects, and the approve permission of the caller (as {@link approverFacts} asks it)
 * and of the requester with their stored roles; a refusal when this instance does not know the
 * tool. The objects are loaded once for all three.
 */
export async function rebuiltCallFor(
  deps: StageDepsWith,
  pending: PendingConfirmation,
  caller: Principal,
): Promise<Step<RebuiltCall>> {
  const facts = await liveCallFacts(deps, pending);
  if (!facts.ok) return facts;
  const { call, tool, loaded } = facts;
  const { registry, policies } = deps.gate;
  const approval = approvalRequestOf(tool, loaded);
  const { subject, tenant, roles } = call.context;
  return accept({
    live: reauthorizeForApproval(call, tool, loaded, { registry, policies }),
    callerAuthorized: authorizeApproval(caller, call.context, approval, policies),
    requesterAuthorized: authorizeApproval(
      { subject, tenant, roles },
      call.context,
      approval,
      policies,
    ),
    sideEffect: tool.spec.sideEffect,
  });
}

/** What policy is asked about approving a call of `tool` on the objects that still exist. */
function approvalRequestOf(tool: Tool, loaded: readonly (ResolvedObject | undefined)[]) {
  const objects = loaded.filter((o): o is ResolvedObject => o !== undefined);
  return { tool: { name: tool.name, sideEffect: tool.spec.sideEffect }, objects };
}
