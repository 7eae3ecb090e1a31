/**
 * What the validate stage decides once a proposal's rungs are climbed and the gate has counted
 * it (DESIGN §7): the call ceilings, then the repair policy with the gate's own count of the
 * call chain's repairs. The agent's `attempt` is only a hint: the larger of the two is used, so
 * claiming `attempt: 0` on every try buys no extra repair.
 */
import { accept } from '../decision.js';
import { checkCallLimits, type CallCounts, type Ceilings } from '../limits/index.js';
import { isCount } from '../limits/is-count.js';
import { isRepairableRung, planRepair, type AnyRejected } from '../repair/index.js';
import { refusal, type Refusal, type Step, type ValidatedProposal } from './validated.js';

/**
 * The repair chain of calls whose tool is not a registered one, or could not be read: one per
 * run, so that varying a bogus tool name buys no fresh budget.
 */
export const UNKNOWN_TOOL_CHAIN = null;

/**
 * The call chain a proposal's repairs are counted in, within its tenant and run: the registered
 * tool the call names, or {@link UNKNOWN_TOOL_CHAIN}.
 */
export type RepairChain = string | typeof UNKNOWN_TOOL_CHAIN;

/** A proposal the validate rungs accepted, and its chain (its tool). */
export interface CheckedAccepted {
  readonly ok: true;
  readonly value: ValidatedProposal;
  readonly chain: string;
}

/** A proposal a validate rung refused, before the repair policy. */
export interface RefusedProposal {
  readonly ok: false;
  /** The rung's own refusal. */
  readonly rejected: AnyRejected;
  /** The `attempt` the proposal claimed (0 when it named none or could not be read). */
  readonly claimed: number;
  readonly chain: RepairChain;
}

/** What the validate rungs made of a proposal, before counting. */
export type CheckedProposal = CheckedAccepted | RefusedProposal;

/** What a counted proposal does to its repair chain. */
export type ChainStep = 'charge' | 'reset' | 'keep';

/**
 * An accepted call ends its chain's repairs (`reset`); a refusal the model may repair is charged
 * to its chain (`charge`), whether or not a repair is then offered; any other refusal leaves the
 * chain as it is (`keep`).
 */
export function chainStepOf(checked: CheckedProposal): ChainStep {
  if (checked.ok) return 'reset';
  const { rejected } = checked;
  return rejected.disposition === 'repair' && isRepairableRung(rejected.stage) ? 'charge' : 'keep';
}

/** What the gate counted for a proposal (the shell's one round trip to Redis). */
export interface GateCounts extends CallCounts {
  /** Repairs charged to the proposal's chain before this proposal. */
  readonly repairsBefore: number;
}

/**
 * The validate stage's decision for a counted proposal: over a call ceiling, the limits refusal
 * (whatever the rungs said: a refused call counts as much as an accepted one); else the rungs'
 * answer, with the repair policy applied by {@link repairStep}.
 */
export function admitProposal(
  checked: RefusedProposal,
  counts: GateCounts,
  ceilings: Ceilings,
): Refusal;
export function admitProposal(
  checked: CheckedProposal,
  counts: GateCounts,
  ceilings: Ceilings,
): Step<ValidatedProposal>;
export function admitProposal(
  checked: CheckedProposal,
  counts: GateCounts,
  ceilings: Ceilings,
): Step<ValidatedProposal> {
  const within = checkCallLimits(counts, ceilings);
  if (!within.ok) return refusal(within);
  return repairStep(checked, counts.repairsBefore, ceilings.repairAttempts);
}

/**
 * The repair policy (`planRepair`) applied to a checked proposal, as if `max(claimed attempt,
 * repairsBefore)` repairs had been made: a repair is offered while that is below `budget`, and
 * the offer's `attempt` is one more. An accepted proposal carries that number as its `attempt`.
 * A `repairsBefore` that is not a count fails closed (`repair_budget_exhausted`).
 */
export function repairStep(
  checked: RefusedProposal,
  repairsBefore: number,
  budget: number,
): Refusal;
export function repairStep(
  checked: CheckedProposal,
  repairsBefore: number,
  budget: number,
): Step<ValidatedProposal>;
export function repairStep(
  checked: CheckedProposal,
  repairsBefore: number,
  budget: number,
): Step<ValidatedProposal> {
  if (checked.ok) {
    const attempt = isCount(repairsBefore)
      ? Math.max(checked.value.attempt, repairsBefore)
      : checked.value.attempt;
    return accept({ ...checked.value, attempt });
  }
  const made = isCount(repairsBefore) ? Math.max(checked.claimed, repairsBefore) : Number.NaN;
  const plan = planRepair(checked.rejected, made, budget);
  return plan.kind === 'repair'
    ? { ok: false, rejected: plan.rejected, repair: plan.repair }
    : refusal(plan.rejected);
}
