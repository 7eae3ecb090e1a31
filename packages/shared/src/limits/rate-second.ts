/**
 * How far ahead of the gate's clock a record's timestamp may be and still be believed: a minute,
 * for a broker whose clock runs a little fast.
 */
export const RATE_CLOCK_SKEW_MS = 60_000;

/**
 * How far back a record's timestamp may be and still be believed: 70 minutes, the longest the
 * proposals topic keeps a record (an hour's retention plus the ten-minute segment it waits for).
 */
export const RATE_LOOKBACK_MS = 70 * 60_000;

/**
 * The second (since the epoch) a proposal's call counts in for the per-second rates: the second
 * its record reached the broker (its log-append timestamp), so a backlog read late, after an
 * outage, is counted in the seconds it was sent in rather than all at once. A timestamp that is
 * missing, or outside [now − {@link RATE_LOOKBACK_MS}, now + {@link RATE_CLOCK_SKEW_MS}], is not
 * believed: the call counts in `now`'s second, with whatever else arrives now (fails closed).
 */
export function rateSecondOf(timestampMs: number | undefined, now: Date): number {
  const nowMs = now.getTime();
  const believed =
    timestampMs !== undefined &&
    Number.isSafeInteger(timestampMs) &&
    timestampMs >= nowMs - RATE_LOOKBACK_MS &&
    timestampMs <= nowMs + RATE_CLOCK_SKEW_MS;
  return Math.floor((believed ? timestampMs : nowMs) / 1000);
}
