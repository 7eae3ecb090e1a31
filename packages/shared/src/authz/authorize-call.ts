/** The authorization rung: may this principal do this to these objects, per current policy? */
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { JsonSchema } from '../tool-spec.js';
import type { Principal, ResolvedObject, SideEffect } from '../types.js';
import { decide } from './cedar-decide.js';
import type { Asked } from './cedar-entities.js';
import type { PolicySet } from './policy-set.js';

const reject = rejecterFor('authorization');

/** The same text for every refusal, so the model learns nothing about why (DESIGN §1). */
export const NOT_ALLOWED = 'This action is not allowed.';

/** What authorization decides on: facts from the session, the tool registry and resolution. */
export interface AuthzRequest {
  /** From the verified session only. */
  readonly principal: Principal;
  /** Trusted tool configuration. */
  readonly tool: { readonly name: string; readonly sideEffect: SideEffect };
  /** Already resolved under the principal's tenant. */
  readonly objects: readonly ResolvedObject[];
  /**
   * The call's arguments as the schema rung accepted them, and the tool's input schema that typed
   * them; policies read them as `context.args`. Absent, `context` has no `args`.
   */
  readonly args?: {
    readonly values: Readonly<Record<string, unknown>>;
    readonly schema: JsonSchema;
  };
}

/**
 * allow → `{policyVersion}`; deny → `not_authorized` (internalDetail: policy version and deciding
 * policy ids, or "default deny"); any evaluation error or failure → `policy_error` (fail closed).
 * Every object must be allowed; with none, the resource is the tool itself. Arguments Cedar
 * cannot hold exactly are an error too (docs/decisions/0001-cedar-entity-model.md).
 */
export function authorizeCall(
  request: AuthzRequest,
  policies: PolicySet,
): Decision<{ readonly policyVersion: string }, 'authorization'> {
  const asked: Asked =
    request.args === undefined ? { action: 'call' } : { action: 'call', args: request.args };
  const verdict = decide(request.principal, request.tool, asked, request.objects, policies);
  switch (verdict.kind) {
    case 'allow':
      return accept({ policyVersion: policies.version });
    case 'deny':
      return reject('not_authorized', NOT_ALLOWED, verdict.detail);
    case 'error':
      return reject('policy_error', NOT_ALLOWED, verdict.detail);
  }
}
