/** Record headers as the gate reads them: one UTF-8 string per name, or nothing. */

/**
 * A header value as kafkajs delivers it: repeated names arrive as an array, and a header written
 * with no value (Kafka allows it; kafkajs's types do not say so) arrives as null.
 */
export type RawHeaderValue =
  Buffer | string | readonly (Buffer | string | null)[] | null | undefined;

/**
 * The headers of a consumed record as `name → UTF-8 text`. A name that appears more than once is
 * left out entirely, as if it were missing: two `toolgate-session` or `toolgate-integrity` values
 * are ambiguous, and picking one would let a writer choose which the gate checks. Leaving it out
 * fails closed (a missing session or tag is refused). A header with no value is left out too:
 * anyone who can write to a topic can send one, and a throw here would stop the stage on that
 * record for good. Invalid UTF-8 becomes U+FFFD, so such a token or tag never verifies.
 */
export function headersFromRecord(
  headers: Readonly<Record<string, RawHeaderValue>> | undefined,
): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined || value === null || Array.isArray(value)) continue;
    out[name] = typeof value === 'string' ? value : (value as Buffer).toString('utf8');
  }
  return out;
}
