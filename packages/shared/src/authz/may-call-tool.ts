/** Tool lists: which tools a principal may be shown at all. */
import type { Principal, SideEffect } from '../types.js';
import { decide } from './cedar-decide.js';
import { CALL } from './cedar-entities.js';
import type { PolicySet } from './policy-set.js';

/**
 * May this principal call this tool at all (resource = the tool)? Same engine as
 * {@link authorizeCall}; an evaluation error answers false. A true here does not authorize a call:
 * the call is still decided on its resolved objects.
 */
export function mayCallTool(
  principal: Principal,
  tool: { readonly name: string; readonly sideEffect: SideEffect },
  policies: PolicySet,
): boolean {
  return decide(principal, tool, CALL, [], policies).kind === 'allow';
}
