import type { Rung } from '../catalogue.js';
import { rejecterFor, type Rejected } from '../decision.js';
import { isCount } from '../limits/is-count.js';
import { isRepairableRung } from './repairable-rungs.js';

const rejectLimits = rejecterFor('limits');

/**
 * A refusal of any one rung. `Rejected` with its default type argument cannot hold a refusal:
 * `CodeOf<Rung>` is the codes common to every rung, which is `never`. Mapping over the rungs
 * first gives the union `Rejected<'authentication'> | Rejected<'representation'> | …` instead.
 */
export type AnyRejected = { [R in Rung]: Rejected<R> }[Rung];

/** What the model is told when a refusal is offered for repair (Observation `repair`). */
export interface RepairOffer {
  /** The `attempt` the corrected proposal must carry. */
  readonly attempt: number;
  /** Corrections left after that one. */
  readonly remaining: number;
  /** The correction prompt for the model. */
  readonly prompt: string;
}

/** What follows a refusal: offer a repair, or end the call with a final refusal. */
export type RepairPlan =
  | { readonly kind: 'repair'; readonly rejected: AnyRejected; readonly repair: RepairOffer }
  | { readonly kind: 'final'; readonly rejected: AnyRejected };

/** The tool-name grammar of `ToolSpec.name`; other names are not echoed to the model. */
const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/**
 * Decides what follows a refusal. A refusal with disposition `repair` from a repairable rung
 * (representation, schema, semantics) while `attempt < budget` is offered for repair; the same
 * with the budget spent becomes `limits/repair_budget_exhausted`, whose internal detail keeps the
 * original rung, code and detail; every other refusal is final and unchanged.
 *
 * The prompt is built only from the refusal's public message, the attempt numbers and, if given,
 * `toolName`: the name the model itself used, echoed so that it can tell which call to fix (and
 * see the name it got wrong for `schema/unknown_tool`). The name is echoed only when it fits the
 * tool-name grammar, so arbitrary model text is never reflected back. Internal detail never is.
 *
 * @param rejected - The refusal of this proposal.
 * @param attempt - The proposal's `attempt` (0 for a first proposal).
 * @param budget - Corrections allowed per call (`Ceilings.repairAttempts`).
 * @param toolName - Optional: the tool name as the model wrote it.
 */
export function planRepair(
  rejected: AnyRejected,
  attempt: number,
  budget: number,
  toolName?: string,
): RepairPlan {
  if (rejected.disposition !== 'repair' || !isRepairableRung(rejected.stage)) {
    return { kind: 'final', rejected };
  }
  if (!isCount(attempt) || !isCount(budget) || attempt >= budget) {
    return { kind: 'final', rejected: budgetSpent(rejected, attempt, budget) };
  }
  const next = attempt + 1;
  const prompt = correctionPrompt(rejected.publicMessage, next, budget, toolName);
  return { kind: 'repair', rejected, repair: { attempt: next, remaining: budget - next, prompt } };
}

function budgetSpent(rejected: AnyRejected, attempt: number, budget: number): AnyRejected {
  return rejectLimits(
    'repair_budget_exhausted',
    undefined,
    `repair budget ${budget} spent at attempt ${attempt}; last refusal ` +
      `${rejected.stage}/${rejected.code}: ${rejected.internalDetail}`,
  );
}

function correctionPrompt(
  publicMessage: string,
  next: number,
  budget: number,
  toolName: string | undefined,
): string {
  const call =
    toolName !== undefined && TOOL_NAME.test(toolName)
      ? `Your call to the tool "${toolName}"`
      : 'Your tool call';
  return `${call} was refused: ${publicMessage} Send a corrected call (correction ${next} of ${budget}).`;
}
