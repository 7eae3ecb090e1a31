/** How long a deployment may let a confirmation wait for a human (DESIGN §4). */

/**
 * Longest confirmation TTL a deployment may set: 7 days, in seconds. A whole week is longer than
 * a person takes to answer; the bound also refuses the likeliest slip, milliseconds given as
 * seconds (the default 30 minutes written `30 * 60 * 1000`).
 */
export const MAX_CONFIRMATION_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * What is wrong with a deployment's `confirmationTtlSeconds` (undefined takes the default): it
 * must be a whole number of seconds from 1 to {@link MAX_CONFIRMATION_TTL_SECONDS}. Anything
 * else would be taken at start and then fail every call that needs a person, with an
 * `internal_error`, so it is refused at start instead. Empty when it is fine.
 */
export function confirmationTtlProblems(value: unknown): string[] {
  if (value === undefined) return [];
  const ok =
    Number.isSafeInteger(value) &&
    (value as number) >= 1 &&
    (value as number) <= MAX_CONFIRMATION_TTL_SECONDS;
  if (ok) return [];
  const shown =
    typeof value === 'number'
      ? String(value)
      : typeof value === 'string'
        ? JSON.stringify(value)
        : `a ${typeof value}`;
  return [
    `confirmationTtlSeconds must be an integer from 1 to ${MAX_CONFIRMATION_TTL_SECONDS}, got ${shown}`,
  ];
}
