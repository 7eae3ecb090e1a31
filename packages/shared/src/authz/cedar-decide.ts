/**
 * One place that asks Cedar, and reads its answer conservatively: an answer with any evaluation
 * error is an error, whatever the decision says, because a policy that errored was skipped.
 */
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import type { Principal, ResolvedObject } from '../types.js';
import { cedarRequest, type ToolFacts } from './cedar-entities.js';
import { engineOf, type PolicySet } from './policy-set.js';

/** What the engine said about a whole call: allowed, denied (by which policies) or failed. */
export type Verdict =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly detail: string }
  | { readonly kind: 'error'; readonly detail: string };

/**
 * Decides `principal` × `action` × every object (or the tool itself when there are none); the
 * first object that is not allowed decides. Details name the policy version, the object and the
 * deciding policy ids (or "default deny"); they are for the audit topic only.
 */
export function decide(
  principal: Principal,
  tool: ToolFacts,
  action: 'call' | 'approve',
  objects: readonly ResolvedObject[],
  policies: PolicySet,
): Verdict {
  const targets = objects.length === 0 ? [undefined] : objects;
  for (const object of targets) {
    const verdict = decideOne(principal, tool, action, object, policies);
    if (verdict.kind !== 'allow') return verdict;
  }
  return { kind: 'allow' };
}

function decideOne(
  principal: Principal,
  tool: ToolFacts,
  action: 'call' | 'approve',
  object: ResolvedObject | undefined,
  policies: PolicySet,
): Verdict {
  const target = object === undefined ? `tool ${tool.name}` : `${object.type}/${object.id}`;
  const prefix = `policy ${policies.version}, ${action} ${tool.name} on ${target}`;
  const engine = engineOf(policies);
  if (engine === undefined) return { kind: 'error', detail: `${prefix}: not a loaded policy set` };
  const built = cedarRequest(principal, tool, action, object, engine.attributes);
  if (!built.ok) return { kind: 'error', detail: `${prefix}: ${built.problem}` };
  const answer = cedar.statefulIsAuthorized({ ...built.request, preparsedPolicySetId: engine.id });
  if (answer.type === 'failure') {
    return {
      kind: 'error',
      detail: `${prefix}: ${answer.errors.map((e) => e.message).join('; ')}`,
    };
  }
  const { decision, diagnostics } = answer.response;
  if (diagnostics.errors.length > 0) {
    const errors = diagnostics.errors.map((e) => `${e.policyId}: ${e.error.message}`);
    return { kind: 'error', detail: `${prefix}: ${errors.join('; ')}` };
  }
  if (decision === 'allow') return { kind: 'allow' };
  const by =
    diagnostics.reason.length > 0 ? `denied by ${diagnostics.reason.join(', ')}` : 'default deny';
  return { kind: 'deny', detail: `${prefix}: ${by}` };
}
