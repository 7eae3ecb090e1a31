/** Approvals: may this person approve this tool on these objects? Asked by the confirmation rung. */
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { Principal } from '../types.js';
import type { AuthzRequest } from './authorize-call.js';
import { decide } from './cedar-decide.js';
import type { PolicySet } from './policy-set.js';

const reject = rejecterFor('confirmation');

/**
 * Asks for action `Toolgate::Action::"approve"` on every object, or on the tool itself when there
 * are none; the context carries the tool's name and side effect and `requester`, the user who
 * proposed the call, so a policy can require an approver other than the requester (four eyes).
 * Deny or any evaluation error → `approver_not_authorized`; the detail says which, for the audit
 * topic.
 */
export function authorizeApproval(
  approver: Principal,
  requester: Principal,
  request: Omit<AuthzRequest, 'principal'>,
  policies: PolicySet,
): Decision<{ readonly policyVersion: string }, 'confirmation'> {
  const asked = { action: 'approve', requester } as const;
  const verdict = decide(approver, request.tool, asked, request.objects, policies);
  if (verdict.kind === 'allow') return accept({ policyVersion: policies.version });
  return reject('approver_not_authorized', undefined, `${verdict.kind}: ${verdict.detail}`);
}
