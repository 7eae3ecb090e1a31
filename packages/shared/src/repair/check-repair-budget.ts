import { accept, rejecterFor, type Decision } from '../decision.js';
import { isCount } from '../limits/is-count.js';

const reject = rejecterFor('limits');

/**
 * Checked before anything else is said about a proposal: `attempt` is 0 for a first proposal and
 * n for the n-th correction, so a proposal whose `attempt` exceeds `budget` is refused
 * `limits/repair_budget_exhausted`. An attempt or budget that is not a non-negative integer fails
 * closed the same way: a negative attempt would otherwise buy extra corrections.
 */
export function checkRepairBudget(attempt: number, budget: number): Decision<void, 'limits'> {
  if (!isCount(attempt) || !isCount(budget)) {
    return reject(
      'repair_budget_exhausted',
      undefined,
      `attempt ${attempt} or budget ${budget} is not a count`,
    );
  }
  if (attempt > budget) {
    return reject(
      'repair_budget_exhausted',
      undefined,
      `attempt ${attempt} > repair budget ${budget}`,
    );
  }
  return accept(undefined);
}
