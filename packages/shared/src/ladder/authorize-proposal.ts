/**
 * The authorize group of rungs: resolution under the caller's tenant, Cedar authorization and
 * preconditions. The shell loads the objects; this module only decides. (The call ceilings are
 * counted and checked where a call enters, by the validate stage: `admitProposal`.)
 */
import { accept, rejecterFor } from '../decision.js';
import { authorizeCall, type PolicySet } from '../authz/index.js';
import type { Tool, ToolRegistry } from '../tools/index.js';
import type { ObjectsById } from '../tool-spec.js';
import type { ObjectRef, ResolvedObject } from '../types.js';
import {
  refusal,
  type AuthorizedProposal,
  type Step,
  type ValidatedProposal,
} from './validated.js';

const rejectResolution = rejecterFor('resolution');
const rejectPrecondition = rejecterFor('precondition');
const rejectExecution = rejecterFor('execution');

/** The facts the authorize group needs besides the loaded objects. */
export interface AuthorizeFacts {
  readonly registry: ToolRegistry;
  readonly policies: PolicySet;
  /**
   * True when the call's idempotency key already holds a settled outcome of this very command
   * (`priorCall`): a client retry, which changes nothing. Resolution and authorization
   * still apply; preconditions do not (the world the first call changed no longer
   * allows it), and the result is marked `replay`.
   */
  readonly settled?: boolean;
}

/** Looks up the validated proposal's tool; a tool that vanished between stages is a fault. */
export function toolOf(v: ValidatedProposal, registry: ToolRegistry): Step<Tool> {
  const tool = registry.get(v.tool);
  if (tool === undefined || tool.spec.version !== v.toolVersion) {
    return refusal(
      rejectExecution(
        'internal_error',
        undefined,
        `tool ${v.tool}@${v.toolVersion} is not loaded here`,
      ),
    );
  }
  return accept(tool);
}

/** The objects a validated call names, for the shell to load under the caller's tenant. */
export function referencesOf(v: ValidatedProposal, tool: Tool): readonly ObjectRef[] {
  return tool.spec.references?.(v.args) ?? [];
}

/**
 * Two references of different types under one id, if the call has them: the hooks, which see
 * objects by id alone ({@link ObjectsById}), could then read one for the other.
 */
function sharedId(refs: readonly ObjectRef[]): readonly [ObjectRef, ObjectRef] | undefined {
  const seen = new Map<string, ObjectRef>();
  for (const ref of refs) {
    const earlier = seen.get(ref.id);
    if (earlier !== undefined && earlier.type !== ref.type) return [earlier, ref];
    seen.set(ref.id, ref);
  }
  return undefined;
}

/** Indexes resolved objects by id, as tool hooks receive them. */
export function byId(objects: readonly ResolvedObject[]): ObjectsById {
  return new Map(objects.map((o) => [o.id, o]));
}

/**
 * Decides resolution, authorization and preconditions for one validated proposal.
 * `loaded[i]` is what the store returned for `referencesOf(...)[i]` under the caller's tenant.
 */
export function authorizeProposal(
  v: ValidatedProposal,
  tool: Tool,
  loaded: readonly (ResolvedObject | undefined)[],
  facts: AuthorizeFacts,
): Step<AuthorizedProposal> {
  const refs = referencesOf(v, tool);
  const clash = sharedId(refs);
  if (clash !== undefined) {
    const [a, b] = clash;
    return refusal(
      rejectResolution(
        'ambiguous_reference',
        undefined,
        `${tool.name} references ${a.type} ${a.id} and ${b.type} ${b.id}; its hooks see objects by id alone`,
      ),
    );
  }
  const objects: ResolvedObject[] = [];
  for (const [i, ref] of refs.entries()) {
    const found = loaded[i];
    // Another tenant's object and a missing one get the same answer: the caller learns nothing.
    if (
      found === undefined ||
      found.tenant !== v.context.tenant ||
      found.type !== ref.type ||
      found.id !== ref.id
    ) {
      return refusal(
        rejectResolution(
          'not_found',
          undefined,
          `${ref.type} ${ref.id} not found under tenant ${v.context.tenant}`,
        ),
      );
    }
    objects.push(found);
  }
  const allowed = authorizeCall(
    {
      principal: v.context,
      tool: { name: tool.name, sideEffect: tool.spec.sideEffect },
      objects,
      args: { values: v.args, schema: tool.spec.input },
    },
    facts.policies,
  );
  if (!allowed.ok) return refusal(allowed);
  const replay = facts.settled === true;
  const issue = replay ? undefined : tool.spec.preconditions?.(v.args, byId(objects));
  if (issue !== undefined)
    return refusal(rejectPrecondition(issue.code, issue.message, `${tool.name}: ${issue.code}`));
  const policyVersion = allowed.value.policyVersion;
  return accept({ ...v, objects, policyVersion, ...(replay ? { replay: true as const } : {}) });
}
