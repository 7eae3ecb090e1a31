/**
 * Idempotent replay (DESIGN §5): the outcome of a finished command is kept on its idempotency
 * record, and a second proposal of the same call gets that outcome again, under its own ids,
 * marked `replay: true`, without a second command.
 */
import { DISPOSITIONS, REJECTION_CODES, RUNGS, type Rung } from '../catalogue.js';
import type { StoredOutcome } from '../idempotency/index.js';
import type { Observation } from '../types.js';
import { observationIdsOf, observationForUnknown, type ObservationIds } from './observations.js';

/**
 * The observation fields a replay repeats. Not the ids, `at` or `replay` (the replay has its
 * own), not `confirmation` (a finished command waits for nobody) and not `repair` (a finished
 * command cannot be corrected).
 */
type Repeated = Pick<Observation, 'disposition' | 'stage' | 'code' | 'message' | 'result'>;

/**
 * What to store on the idempotency record once `observation` ended the command: its outcome and
 * the fields a replay repeats (not the ids, `at`, `replay`, `confirmation` or `repair`).
 *
 * @throws TypeError for an outcome a command cannot end in (`pending_confirmation`, `expired`):
 *   a fault of the caller.
 */
export function storedOutcomeOf(observation: Observation): StoredOutcome {
  const { outcome } = observation;
  if (outcome !== 'result' && outcome !== 'rejected' && outcome !== 'unknown_outcome') {
    throw new TypeError(`a command does not end in ${outcome}`);
  }
  return { outcome, observation: repeatedOf(observation) };
}

/**
 * Re-issues a stored outcome under the ids of the proposal that asked again (a new proposalId),
 * at `now`, with `replay: true`. A stored observation that is not one the gate wrote (a lost or
 * damaged outcome) replays as `unknown_outcome`: the truthful answer when the gate cannot say what
 * happened, and never a reason to run the command again.
 */
export function replayObservation(
  stored: StoredOutcome,
  ids: ObservationIds,
  now: Date,
): Observation {
  const repeated =
    stored.outcome === 'unknown_outcome'
      ? undefined
      : readRepeated(stored.outcome, stored.observation);
  if (repeated === undefined) return { ...observationForUnknown(ids, now), replay: true };
  return {
    ...observationIdsOf(ids),
    outcome: stored.outcome,
    ...repeated,
    replay: true,
    at: now.toISOString(),
  };
}

function repeatedOf(o: Observation): Repeated {
  return {
    disposition: o.disposition,
    ...(o.stage === undefined ? {} : { stage: o.stage }),
    ...(o.code === undefined ? {} : { code: o.code }),
    message: o.message,
    ...(o.result === undefined
      ? {}
      : { result: { content: o.result.content, withheld: o.result.withheld } }),
  };
}

function readRepeated(
  outcome: 'result' | 'rejected',
  o: Readonly<Record<string, unknown>>,
): Repeated | undefined {
  const { disposition, stage, code, message, result } = o;
  if (!(DISPOSITIONS as readonly unknown[]).includes(disposition)) return undefined;
  if (typeof message !== 'string' || message === '') return undefined;
  if ((stage === undefined) !== (code === undefined)) return undefined;
  if (stage !== undefined && !isCodeOf(stage, code)) return undefined;
  if (result !== undefined && !isShown(result)) return undefined;
  const fits =
    outcome === 'result'
      ? disposition === 'execute' && (stage !== undefined || result !== undefined)
      : stage !== undefined && result === undefined;
  return fits ? repeatedOf(o as unknown as Observation) : undefined;
}

function isCodeOf(rung: unknown, code: unknown): boolean {
  if (!(RUNGS as readonly unknown[]).includes(rung) || typeof code !== 'string') return false;
  return Object.hasOwn(REJECTION_CODES[rung as Rung], code);
}

function isShown(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const { content, withheld } = r as Record<string, unknown>;
  return typeof content === 'string' && typeof withheld === 'boolean';
}
