/**
 * One place that asks Cedar, and reads its answer conservatively: an answer with any evaluation
 * error is an error, whatever the decision says, because a policy that errored was skipped.
 */
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { LruCache } from '../auth/lru-cache.js';
import type { Principal, ResolvedObject } from '../types.js';
import { cedarRequest, type Asked, type CedarRequest, type ToolFacts } from './cedar-entities.js';
import { engineOf, type PolicySet } from './policy-set.js';

/** What the engine said about a whole call: allowed, denied (by which policies) or failed. */
export type Verdict =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly detail: string }
  | { readonly kind: 'error'; readonly detail: string };

/**
 * Decides `principal` × `asked` × every object (or the tool itself when there are none); the
 * first object that is not allowed decides. Details name the policy version, the object and the
 * deciding policy ids (or "default deny"); they are for the audit topic only.
 */
export function decide(
  principal: Principal,
  tool: ToolFacts,
  asked: Asked,
  objects: readonly ResolvedObject[],
  policies: PolicySet,
): Verdict {
  const targets = objects.length === 0 ? [undefined] : objects;
  for (const object of targets) {
    const verdict = decideOne(principal, tool, asked, object, policies);
    if (verdict.kind !== 'allow') return verdict;
  }
  return { kind: 'allow' };
}

/** What Cedar answered for one request, reduced to what a verdict needs. */
type Answer =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly reasons: readonly string[] }
  | { readonly kind: 'error'; readonly errors: readonly string[] };

/** Distinct requests remembered per loaded policy set. */
export const DECISION_MEMO_SIZE = 10_000;

// Cedar is deterministic: the same request against the same pre-parsed policy set always gets
// the same answer, and the request carries every attribute a policy can read (and only those).
// A run's calls repeat few distinct requests, and crossing into WebAssembly dominates the
// ladder's cost, so answers are remembered per policy set (bounded; a new set starts empty).
const memos = new Map<string, LruCache<string, Answer>>();

function memoOf(engineId: string): LruCache<string, Answer> {
  let memo = memos.get(engineId);
  if (memo === undefined) {
    memo = new LruCache(DECISION_MEMO_SIZE);
    memos.set(engineId, memo);
  }
  return memo;
}

function ask(engineId: string, request: CedarRequest): Answer {
  const memo = memoOf(engineId);
  const key = JSON.stringify(request);
  const known = memo.get(key);
  if (known !== undefined) return known;
  const reduced = reduce(engineId, request);
  memo.set(key, reduced);
  return reduced;
}

function reduce(engineId: string, request: CedarRequest): Answer {
  let answer: cedar.AuthorizationAnswer;
  try {
    answer = cedar.statefulIsAuthorized({ ...request, preparsedPolicySetId: engineId });
  } catch (error) {
    // The engine throws on input its JSON reader refuses; that must refuse, not crash the stage.
    return { kind: 'error', errors: [`the engine refused the request: ${String(error)}`] };
  }
  return answer.type === 'failure'
    ? { kind: 'error', errors: answer.errors.map((e) => e.message) }
    : answer.response.diagnostics.errors.length > 0
      ? {
          kind: 'error',
          errors: answer.response.diagnostics.errors.map(
            (e) => `${e.policyId}: ${e.error.message}`,
          ),
        }
      : answer.response.decision === 'allow'
        ? { kind: 'allow' }
        : { kind: 'deny', reasons: answer.response.diagnostics.reason };
}

function decideOne(
  principal: Principal,
  tool: ToolFacts,
  asked: Asked,
  object: ResolvedObject | undefined,
  policies: PolicySet,
): Verdict {
  const target = object === undefined ? `tool ${tool.name}` : `${object.type}/${object.id}`;
  const prefix = `policy ${policies.version}, ${asked.action} ${tool.name} on ${target}`;
  const engine = engineOf(policies);
  if (engine === undefined) return { kind: 'error', detail: `${prefix}: not a loaded policy set` };
  const built = cedarRequest(principal, tool, asked, object, engine);
  if (!built.ok) return { kind: 'error', detail: `${prefix}: ${built.problem}` };
  const answer = ask(engine.id, built.request);
  switch (answer.kind) {
    case 'allow':
      return answer;
    case 'error':
      return { kind: 'error', detail: `${prefix}: ${answer.errors.join('; ')}` };
    case 'deny': {
      const by =
        answer.reasons.length > 0 ? `denied by ${answer.reasons.join(', ')}` : 'default deny';
      return { kind: 'deny', detail: `${prefix}: ${by}` };
    }
  }
}
