/**
 * How long an idempotency record lives in Redis, in seconds: 7 days (use as the `EX` of the claim
 * and of every later write of the record).
 *
 * DESIGN §5 asks for at least 24 h and longer than Kafka redelivery can reach. Redelivery reaches
 * as far back as a topic still holds the message: an offset reset or a replay from `earliest`
 * re-reads everything within retention, and Kafka's default `log.retention.hours` is 168. A record
 * that outlived the message it guards is what stops that re-read from publishing a second command.
 * If a deployment keeps `toolgate.proposals`, `toolgate.cleared` or the command topics longer,
 * raise this with it. Records are small (a digest, a token, an observation), so a week is cheap.
 */
export const IDEMPOTENCY_RETENTION_SECONDS = 7 * 24 * 60 * 60;
