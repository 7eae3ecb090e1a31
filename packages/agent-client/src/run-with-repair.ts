/**
 * The bounded repair loop (DESIGN §1, §9): a call the gate refuses for repair goes back to the
 * model with the gate's correction prompt, and the corrected call is submitted linked to the
 * refused one (`repairOf`, `attempt`), until a call is not refused for repair or the budget is
 * spent. The gate keeps the budget itself: it counts the repairs of each call chain (tenant, run,
 * tool) and treats `attempt` only as a hint, so past the budget a call is
 * `limits/repair_budget_exhausted` whatever `attempt` a client claims.
 */
import {
  DEFAULT_REPAIR_BUDGET,
  isRepairableRung,
  type Observation,
  type Proposal,
} from '@toolgate/shared';
import type { AgentClient, CallOptions } from './agent-client.js';
import type { ProposalAdapter, ProposalIds } from './proposal-ids.js';

/** What the loop needs of a client. */
export type RepairClient = Pick<AgentClient, 'call'>;

/** Options of {@link runWithRepair}. */
export interface RepairLoopOptions<R> {
  readonly client: RepairClient;
  /**
   * Asks the model again: `prompt` is the gate's correction prompt (the refusal's public message,
   * nothing internal) and `attempt` the number of the correction (1, 2, …). Returns the model's
   * raw response, of the same kind as `first`.
   */
  readonly model: (prompt: string, attempt: number) => Promise<R>;
  /** The model's first raw response. */
  readonly first: R;
  /** Reads a raw response into proposals, e.g. {@link fromOpenAIChat}. */
  readonly adapter: ProposalAdapter<R>;
  /** Run and request of every proposal; `proposalId`, if given, names the first one only. */
  readonly ids: ProposalIds;
  /** Corrections allowed per call; default 2 (the gate's default ceiling). */
  readonly budget?: number;
  /** Passed to every {@link AgentClient.call}: timeout, onPending, session. */
  readonly callOptions?: CallOptions;
}

/**
 * Submits every call of `first` in turn and follows each through its corrections. A call refused
 * for repair at a rung whose refusals may be reworded (representation, schema, semantics) whose
 * observation offers a repair, with `attempt < budget`, is sent back to `model`; the first
 * call of its reply is submitted with a new proposalId, the same runId and requestId,
 * `repairOf` = the refused proposalId and `attempt` + 1. A call ends when its observation offers
 * no repair, when the budget is spent, or when the model's reply holds no call.
 *
 * @returns Every observation received, in order (a `pending_confirmation` before its terminal
 * observation); empty when `first` holds no call.
 * @throws whatever the client or the model throws (e.g. an ObservationTimeoutError).
 */
export async function runWithRepair<R>(options: RepairLoopOptions<R>): Promise<Observation[]> {
  const budget = options.budget ?? DEFAULT_REPAIR_BUDGET;
  if (!Number.isSafeInteger(budget) || budget < 0) {
    throw new RangeError(`budget must be a non-negative integer, not ${budget}`);
  }
  const seen: Observation[] = [];
  for (const proposal of options.adapter(options.first, options.ids)) {
    await follow(proposal, options, budget, seen);
  }
  return seen;
}

/** Submits `first` and its corrections, appending each observation to `seen`. */
async function follow<R>(
  first: Proposal,
  options: RepairLoopOptions<R>,
  budget: number,
  seen: Observation[],
): Promise<void> {
  const callOptions = withPendingRecorded(options.callOptions ?? {}, seen);
  let proposal: Proposal | undefined = first;
  while (proposal !== undefined) {
    const observation = await options.client.call(proposal, callOptions);
    seen.push(observation);
    const attempt = proposal.attempt ?? 0;
    const prompt = repairPrompt(observation);
    if (prompt === undefined || attempt >= budget) return;
    const reply = await options.model(prompt, attempt + 1);
    proposal = correction(reply, proposal, options);
  }
}

/**
 * The correction prompt of a refusal for repair at a rung whose refusals may be reworded; else
 * undefined. The gate offers nothing else, and the loop does not take on trust an offer that says
 * otherwise: rewording must never change what the runtime permits (DESIGN §1), so an authorization
 * or precondition refusal, or a passed call, goes back to no model whatever it carries.
 */
function repairPrompt(o: Observation): string | undefined {
  const repairable = o.stage !== undefined && isRepairableRung(o.stage);
  const refusedForRepair = o.outcome === 'rejected' && o.disposition === 'repair';
  return repairable && refusedForRepair ? o.repair?.prompt : undefined;
}

/** The first call of the model's reply, linked to `refused`; undefined when it holds none. */
function correction<R>(
  reply: R,
  refused: Proposal,
  options: RepairLoopOptions<R>,
): Proposal | undefined {
  const { runId, requestId } = options.ids;
  const [next] = options.adapter(reply, { runId, requestId });
  if (next === undefined) return undefined;
  return { ...next, attempt: (refused.attempt ?? 0) + 1, repairOf: refused.proposalId };
}

function withPendingRecorded(callOptions: CallOptions, seen: Observation[]): CallOptions {
  const { onPending } = callOptions;
  return {
    ...callOptions,
    onPending: (observation) => {
      seen.push(observation);
      onPending?.(observation);
    },
  };
}
