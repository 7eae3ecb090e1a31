/**
 * The one consume → handle → produce + commit loop every stage runs (DESIGN §2; decision 0002).
 * Per partition batch, in chunks of at most `maxBatchMessages`: decode and handle each message,
 * encode what the handler returns, then a transaction sends all of it and the group's offset past
 * the last handled message, and commits. Outputs and input offsets become visible together or not
 * at all; a crash before the commit means the chunk is delivered again, and the handlers'
 * deterministic ids make that harmless.
 *
 * Within a chunk, messages with the same key (a run, a tenant) are handled in offset order and
 * different keys side by side (`keysConcurrently`), so one message's Redis round trips do not
 * hold up the rest; a handler that has sent the steps whose order matters releases the key, and
 * the key's next message starts then (at once, for a message that depends on none before it).
 * Outputs keep the offset order. Partitions are handled side by side (`partitionsConcurrently`),
 * and their chunks share transactions (group commit).
 *
 * Faults, not refusals, are handled here, with one policy:
 * - a retriable `Fault` (Redis, registry, Kafka down): what came before the message is
 *   committed, the partition is paused and rewound to the message, and resumed after a capped
 *   exponential backoff. Nothing after it with the same key is handled first, and nothing is
 *   skipped; messages of other keys that a lane handled meanwhile are not committed, and are
 *   handled again on redelivery (as after a crash: the handlers' ids are deterministic).
 * - anything else (a bug, a poison message, an output larger than Kafka takes): `onFatal` builds
 *   the `internal_error` outputs for that message, they are produced in its place, and the loop
 *   moves on. Outputs that are large only together go in several requests of one transaction.
 * - a transaction that fails: it is aborted, the producer is replaced (which also finishes any
 *   transaction the broker still holds open for it), and the partition is rewound to the group's
 *   committed offset, so a commit that did land is not handled twice.
 *
 * The modules, in `stage-loop/`: `loop.ts` composes the others; `key-lanes.ts` (which message runs
 * when, pure), `message-handling.ts` (decode, handle, encode, onFatal), `group-commit.ts` (shared
 * transactions), `partition-retry.ts` (pause, rewind, resume), `lag-report.ts`,
 * `producer-renewal.ts`, `shutdown.ts`, `loop-state.ts` (starting → running → stopping → stopped,
 * or crashed), `options.ts` (checked, defaulted, frozen) and `bus-port.ts` (all the loop takes
 * from the Kafka adapter).
 */
export { startStageLoop } from './stage-loop/loop.js';
export {
  resolveStageLoopOptions,
  STAGE_LOOP_DEFAULTS,
  type ResolvedStageLoopOptions,
  type StageLoopOptions,
  type StageLoopOptionsOutcome,
} from './stage-loop/options.js';
export { STAGE_LOOP_STATES, type StageLoopState } from './stage-loop/loop-state.js';
export type { GroupMembership } from './group-membership.js';
export type {
  EncodedOutgoing,
  Incoming,
  Outgoing,
  RawOutgoing,
  StageLoop,
  StageLoopMetrics,
  StageTopic,
} from './stage-loop/types.js';
