import { accept, rejecterFor, type Decision } from '../decision.js';

const reject = rejecterFor('idempotency');

/** The outcome of a finished (or timed-out) command, kept so that a replay can return it. */
export interface StoredOutcome {
  /** The terminal outcome the first execution ended in. */
  readonly outcome: 'result' | 'rejected' | 'unknown_outcome';
  /** The observation fields to publish again on replay (the shell sets `replay: true`). */
  readonly observation: Readonly<Record<string, unknown>>;
}

/** States of an idempotency record. */
export const IDEMPOTENCY_STATES = ['claimed', 'done', 'unknown'] as const;

/**
 * `claimed`: the command was (or is being) published, no result yet. `done`: a result came back
 * and `outcome` holds it. `unknown`: the tool timed out, `outcome` says the outcome is unknown.
 */
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/** The record stored under an idempotency key (DESIGN §5). */
export interface IdempotencyRecord {
  /** {@link commandDigest} of the command that claimed the key. */
  readonly digest: string;
  /** Where the command stands. */
  readonly state: IdempotencyState;
  /**
   * The unique claim token of whoever claimed the key. It lets a claimant recognise its own claim
   * when a client retry makes `SET NX` answer "exists" for the write it made itself.
   */
  readonly token: string;
  /** The command published under this key, once known. */
  readonly commandId?: string;
  /** Present when `state` is `done` or `unknown`. */
  readonly outcome?: StoredOutcome;
}

/** What the shell does with the key when the idempotency rung accepts. */
export type IdempotencyAction =
  /** No record: claim the key (`SET NX` with my token and the retention TTL), then publish. */
  | { readonly action: 'claim' }
  /** The record is my own claim, still open: carry on as if the claim had just succeeded. */
  | { readonly action: 'proceed' }
  /**
   * The record is my own claim and its command has ended (`done` or `unknown`): the same message
   * was read again (an offset reset, or a restart after the deadline sweeper ended the command).
   * Whoever settled the record published the terminal outcome; publish no command and no second
   * terminal observation. `outcome` is what was stored, for callers that report it otherwise.
   */
  | { readonly action: 'settled'; readonly outcome: StoredOutcome }
  /** Finished with the same digest: publish the stored outcome again, publish no command. */
  | { readonly action: 'replay'; readonly outcome: StoredOutcome };

/** Replayed when a finished record lost its outcome: the truthful answer is "we do not know". */
const OUTCOME_LOST: StoredOutcome = { outcome: 'unknown_outcome', observation: {} };

/** How the call reached the idempotency rung. */
export interface IdempotencyOptions {
  /**
   * The call was authorized as a replay of a settled one (`AuthorizedProposal.replay`): its
   * preconditions and confirmation were skipped because the record held its outcome. Without a
   * record it must not claim the key, since that would run a command nothing confirmed.
   */
  readonly replayOnly?: boolean;
}

/**
 * The idempotency rung: what to do with a key, given the record found under it (or none).
 * In order: no record → `claim`, or `replay_expired` (retry) for a call authorized as a replay; another digest → `conflict` (deny); my own token → `proceed`
 * while the record is `claimed`, `settled` once it is `done` or `unknown` (never a second command
 * for a call that ended); `done` or `unknown` → `replay` the stored outcome; claimed under another
 * token → `in_flight` (retry). A finished record without a stored outcome replays
 * `unknown_outcome` rather than run the command a second time.
 *
 * @param record - The record under the key, decoded by the shell; undefined when there is none.
 * @param digest - {@link commandDigest} of the command now proposed.
 * @param myToken - The claim token this handler would write (or wrote) with `SET NX`.
 */
export function decideIdempotency(
  record: IdempotencyRecord | undefined,
  digest: string,
  myToken: string,
  options: IdempotencyOptions = {},
): Decision<IdempotencyAction, 'idempotency'> {
  if (record === undefined && options.replayOnly === true) {
    return reject(
      'replay_expired',
      undefined,
      'authorized as a replay of a settled call, but the key holds no record any more',
    );
  }
  if (record === undefined) return accept({ action: 'claim' });
  if (record.digest !== digest) {
    return reject(
      'conflict',
      undefined,
      `key holds digest ${record.digest} (state ${record.state}${commandOf(record)}), proposed ${digest}`,
    );
  }
  if (record.token === myToken) {
    return accept(
      record.state === 'claimed'
        ? { action: 'proceed' }
        : { action: 'settled', outcome: record.outcome ?? OUTCOME_LOST },
    );
  }
  switch (record.state) {
    case 'done':
    case 'unknown':
      return accept({ action: 'replay', outcome: record.outcome ?? OUTCOME_LOST });
    case 'claimed':
      return reject('in_flight', undefined, `claimed by another handler${commandOf(record)}`);
  }
}

function commandOf(record: IdempotencyRecord): string {
  return record.commandId === undefined ? '' : `, command ${record.commandId}`;
}
