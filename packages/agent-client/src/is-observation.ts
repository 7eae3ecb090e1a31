/** A structural check of what arrives on the observations topic, before it is handed to a waiter. */
import { OUTCOMES, type Observation } from '@toolgate/shared';

const REQUIRED_TEXT = ['proposalId', 'runId', 'requestId', 'disposition', 'message', 'at'] as const;

/**
 * True when `value` has the fields an agent relies on: the ids, a known outcome, a disposition,
 * a message, a time, and a well-formed repair offer when there is one. The gate validates what it
 * writes against the full schema; this only keeps a stray record from reaching a waiter.
 */
export function isObservation(value: unknown): value is Observation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const o = value as Readonly<Record<string, unknown>>;
  if (!REQUIRED_TEXT.every((field) => typeof o[field] === 'string' && o[field] !== ''))
    return false;
  if (!(OUTCOMES as readonly unknown[]).includes(o['outcome'])) return false;
  return o['repair'] === undefined || isRepairOffer(o['repair']);
}

/** True for the terminal outcomes: every one but `pending_confirmation`. */
export function isTerminal(observation: Observation): boolean {
  return observation.outcome !== 'pending_confirmation';
}

function isRepairOffer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Readonly<Record<string, unknown>>;
  return (
    Number.isSafeInteger(r['attempt']) &&
    Number.isSafeInteger(r['remaining']) &&
    typeof r['prompt'] === 'string'
  );
}
