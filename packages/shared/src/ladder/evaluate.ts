/**
 * The whole ladder for one proposal, in-process: what `toolgate evaluate` runs, and what an agent
 * can run in its own process or an offline replay. It never executes a tool. Idempotency records
 * and call counters live in an `EvaluationState` that the caller keeps for one run.
 */
import { accept } from '../decision.js';
import type { SessionVerifier } from '../auth/index.js';
import type { PolicySet } from '../authz/index.js';
import { decideIdempotency, type IdempotencyRecord } from '../idempotency/index.js';
import type { Ceilings } from '../limits/index.js';
import type { ToolRegistry } from '../tools/index.js';
import type { ObjectStore } from '../tool-spec.js';
import type { Card, Command, Principal } from '../types.js';
import { authorizeProposal, referencesOf, toolOf } from './authorize-proposal.js';
import { buildCommand, identityFor, identityOf, priorCall } from './build-command.js';
import { planConfirmation } from './plan-confirmation.js';
import {
  admitProposal,
  chainStepOf,
  UNKNOWN_TOOL_CHAIN,
  type CheckedProposal,
  type GateCounts,
} from './admit-proposal.js';
import { checkProposal, envelopeIds } from './validate-proposal.js';
import { refusal, type Refusal, type Step } from './validated.js';

/** Everything the ladder consults, built once from a deployment. */
export interface Gate {
  readonly registry: ToolRegistry;
  /** The deployment's tenants: a session of any other tenant is refused. */
  readonly tenants: ReadonlySet<string>;
  readonly policies: PolicySet;
  readonly verifier: SessionVerifier;
  readonly objects: ObjectStore;
  readonly ceilings: Ceilings;
}

/** Per-run state: idempotency records and call counters, kept for the length of one run. */
export interface EvaluationState {
  readonly idempotency: Map<string, IdempotencyRecord>;
  /** Per tenant and run (the JSON array `[tenant, runId]`), as the services count them. */
  readonly callsByRun: Map<string, number>;
  /** Per tenant: the current one-second window and the calls counted in it. */
  readonly callsByTenantSecond: Map<string, { readonly second: number; readonly calls: number }>;
  /** Per user (the JSON array `[tenant, subject]`): the current one-second window and its calls. */
  readonly callsByUserSecond: Map<string, { readonly second: number; readonly calls: number }>;
  /** Repairs charged per call chain (the JSON array `[tenant, runId, tool or null]`). */
  readonly repairsByChain: Map<string, number>;
}

/** A fresh, empty state for one run. */
export function createEvaluationState(): EvaluationState {
  return {
    idempotency: new Map(),
    callsByRun: new Map(),
    callsByTenantSecond: new Map(),
    callsByUserSecond: new Map(),
    repairsByChain: new Map(),
  };
}

/** One input of `toolgate evaluate`: a proposal and the caller's compact session token. */
export interface EvaluationInput {
  readonly session?: string | undefined;
  readonly proposal: unknown;
}

/** What the ladder decided for one proposal. */
export type Evaluation =
  | {
      readonly kind: 'execute';
      readonly proposalId: string;
      readonly command: Command;
      readonly replay: boolean;
    }
  | {
      readonly kind: 'confirm';
      readonly proposalId: string;
      readonly card: Card;
      readonly digest: string;
    }
  | ({ readonly kind: 'refused'; readonly proposalId: string | null } & Omit<Refusal, 'ok'>);

/** Runs every rung for one proposal. `now` is the only clock. */
export async function evaluate(
  input: EvaluationInput,
  gate: Gate,
  state: EvaluationState,
  now: Date,
): Promise<Evaluation> {
  const ids = envelopeIds(input.proposal);
  if (!ids.ok) return { kind: 'refused', proposalId: null, rejected: ids };
  const proposalId = ids.value.proposalId;
  const outcome = await climb(input, gate, state, now);
  return outcome.ok
    ? { ...outcome.value, proposalId }
    : {
        kind: 'refused',
        proposalId,
        rejected: outcome.rejected,
        ...(outcome.repair ? { repair: outcome.repair } : {}),
      };
}

type Decided =
  | { readonly kind: 'execute'; readonly command: Command; readonly replay: boolean }
  | { readonly kind: 'confirm'; readonly card: Card; readonly digest: string };

async function climb(
  input: EvaluationInput,
  gate: Gate,
  state: EvaluationState,
  now: Date,
): Promise<Step<Decided>> {
  const principal = await gate.verifier.verify(input.session, now);
  if (!principal.ok) return refusal(principal);
  const checked = checkProposal(input.proposal, principal.value, {
    registry: gate.registry,
    limits: { maxBytes: gate.ceilings.argumentBytes, maxDepth: gate.ceilings.maxDepth },
    repairBudget: gate.ceilings.repairAttempts,
  });
  const ids = envelopeIds(input.proposal);
  const runId = ids.ok ? ids.value.runId : '';
  const counts = count(state, runId, principal.value, checked, now);
  const validated = admitProposal(checked, counts, gate.ceilings);
  if (!validated.ok) return validated;
  const tool = toolOf(validated.value, gate.registry);
  if (!tool.ok) return tool;
  const v = validated.value;
  const refs = referencesOf(v, tool.value);
  const loaded = await Promise.all(refs.map((ref) => gate.objects.load(v.context.tenant, ref)));
  const known = identityFor(v, refs, tool.value.spec.sideEffect);
  const prior = priorCall(state.idempotency.get(known.key), known.digest);
  if (!prior.ok) return refusal(prior);
  const settled = prior.value.settled;
  const authorized = authorizeProposal(v, tool.value, loaded, {
    registry: gate.registry,
    policies: gate.policies,
    settled,
  });
  if (!authorized.ok) return authorized;
  const plan = planConfirmation(authorized.value, tool.value);
  if (plan.needed) return accept({ kind: 'confirm', card: plan.card, digest: plan.digest });
  const { key, digest } = identityOf(authorized.value, tool.value.spec.sideEffect);
  const token = `evaluate:${v.proposalId}`;
  const decided = decideIdempotency(state.idempotency.get(key), digest, token, {
    replayOnly: authorized.value.replay === true,
  });
  if (!decided.ok) return refusal(decided);
  // `settled`: the same proposal evaluated again after its call ended; it gets the stored command.
  if (decided.value.action === 'replay' || decided.value.action === 'settled') {
    const command = decided.value.outcome.observation['command'] as Command;
    return accept({ kind: 'execute', command, replay: true });
  }
  const command = buildCommand(authorized.value, key, { now, timeoutMs: tool.value.timeoutMs });
  state.idempotency.set(key, {
    digest,
    state: 'done',
    token,
    commandId: command.commandId,
    outcome: { outcome: 'result', observation: { command } },
  });
  return accept({ kind: 'execute', command, replay: false });
}

/** Counts a proposal as the validate stage does: in its run, its user's and tenant's second. */
function count(
  state: EvaluationState,
  runId: string,
  who: Principal,
  checked: CheckedProposal,
  now: Date,
): GateCounts {
  const second = Math.floor(now.getTime() / 1000);
  const tick = (windows: EvaluationState['callsByTenantSecond'], key: string) => {
    const window = windows.get(key);
    const calls = window?.second === second ? window.calls + 1 : 1;
    windows.set(key, { second, calls });
    return calls;
  };
  const run = JSON.stringify([who.tenant, runId]);
  const callsInRun = (state.callsByRun.get(run) ?? 0) + 1;
  state.callsByRun.set(run, callsInRun);
  const chain = JSON.stringify([who.tenant, runId, checked.chain]);
  const repairsBefore = state.repairsByChain.get(chain) ?? 0;
  const step = chainStepOf(checked);
  if (step === 'charge') state.repairsByChain.set(chain, repairsBefore + 1);
  if (step === 'reset') {
    state.repairsByChain.delete(chain);
    state.repairsByChain.delete(JSON.stringify([who.tenant, runId, UNKNOWN_TOOL_CHAIN]));
  }
  return {
    callsInRun,
    userCallsThisSecond: tick(state.callsByUserSecond, JSON.stringify([who.tenant, who.subject])),
    tenantCallsThisSecond: tick(state.callsByTenantSecond, who.tenant),
    repairsBefore,
  };
}
