/**
 * The history of decided confirmations, per tenant, for `GET /decided`: one record per
 * confirmation (approved, rejected, amended, expired, ended), newest first, capped and expiring.
 * History is a view for people, written before the decision's Kafka transaction: a transaction that
 * fails and is retried writes the same record again. The audit topic is the record; a record here
 * can be dropped (cap, TTL) or outlive an aborted transaction by one retry.
 */
import type { AmendNote, DecidedView } from '@toolgate/shared';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { pageWindow, unlessCorrupt } from './page-window.js';
import { checkCount, decode, hasStrings, isObject } from './stored-json.js';
import { MAX_BATCH } from './expired-claims.js';

/** How long a decided confirmation stays in its tenant's history: 7 days, in ms. */
export const DECIDED_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Most decided confirmations one tenant's history keeps: the newest 1000. */
export const DECIDED_CAP = 1000;

const SCRIPTS = {
  record: loadScript('record-decided'),
  page: loadScript('page-decided'),
};

/** A place in a tenant's history: an entry's decision time (ms) and id. */
export interface DecidedPosition {
  readonly decidedAtMs: number;
  readonly confirmationId: string;
}

/** One entry of a {@link DecidedWindow}. */
export interface DecidedEntry {
  readonly position: DecidedPosition;
  /** Undefined when its record expired meanwhile or cannot be read. */
  readonly view?: DecidedView;
}

/** A window of a tenant's history, as {@link DecidedHistory.listDecided} reads it. */
export interface DecidedWindow {
  /** Newest first (then by id, descending). */
  readonly entries: readonly DecidedEntry[];
  /** True when older entries remain past the last one of this window. */
  readonly more: boolean;
}

/** Options of the history. */
export interface DecidedHistoryOptions {
  /** How long a record is kept; ms. Default {@link DECIDED_TTL_MS}. */
  readonly decidedTtlMs?: number;
  /** Most records a tenant's history keeps. Default {@link DECIDED_CAP}. */
  readonly decidedCap?: number;
}

/** The decided confirmations of every tenant, and the amends sent for waiting ones. */
export interface DecidedHistory {
  /**
   * Records `view` in its tenant's history under its confirmationId, replacing the record of an
   * earlier attempt; drops the entries past the cap or the TTL.
   */
  recordDecided(view: DecidedView): Promise<void>;
  /**
   * A window of `size` (1 to {@link MAX_BATCH}) entries of the tenant's history, newest first,
   * after a position: page through it by passing each window's last position on.
   */
  listDecided(
    tenant: string,
    options: { readonly after?: DecidedPosition; readonly size: number },
  ): Promise<DecidedWindow>;
  /** Keeps the amend sent for a waiting confirmation (for the TTL), replacing an earlier one. */
  noteAmend(tenant: string, confirmationId: string, note: AmendNote): Promise<void>;
  /** The amend last kept for the confirmation, or undefined. */
  readAmend(tenant: string, confirmationId: string): Promise<AmendNote | undefined>;
}

/** The history on `conn`. */
export function createDecidedHistory(
  conn: RedisConnection,
  options: DecidedHistoryOptions = {},
): DecidedHistory {
  const { keys } = conn;
  const ttlMs = options.decidedTtlMs ?? DECIDED_TTL_MS;
  const cap = options.decidedCap ?? DECIDED_CAP;
  checkCount('decided TTL (ms)', ttlMs, 1);
  checkCount('decided cap', cap, 1);
  // One record that cannot be read must not hide the rest of its tenant's history.
  const readable = async (k: string) => {
    const text = await conn.run('read_decided', (r) => r.get(k));
    return unlessCorrupt(() =>
      text === null ? undefined : decode(text, 'decided confirmation', k, isDecidedView),
    );
  };
  return {
    async recordDecided(view) {
      const at = Date.parse(view.decidedAt);
      checkCount('decidedAt (ms)', at, 0);
      const { tenant, confirmationId: id } = view;
      const recordPrefix = keys.decided(tenant, '');
      const args = [JSON.stringify(view), at, id, ttlMs, cap, recordPrefix, at - ttlMs];
      const scriptKeys = [keys.decided(tenant, id), keys.decidedByTenant(tenant)];
      await conn.script(SCRIPTS.record, scriptKeys, args);
    },
    async listDecided(tenant, { after, size }) {
      checkCount('window size', size, 1, MAX_BATCH);
      if (after !== undefined) checkCount('after.decidedAtMs', after.decidedAtMs, 0);
      const index = keys.decidedByTenant(tenant);
      const args = [
        after === undefined ? '' : after.decidedAtMs,
        after?.confirmationId ?? '',
        size,
      ];
      const reply = await conn.script(SCRIPTS.page, [index], args);
      const window = pageWindow(reply, index, 'history');
      const positions: DecidedPosition[] = window.positions.map(({ score, id }) => ({
        decidedAtMs: score,
        confirmationId: id,
      }));
      const found = await Promise.all(
        positions.map((p) => readable(keys.decided(tenant, p.confirmationId))),
      );
      const entries = positions.map((position, i) => {
        const view = found[i];
        return view === undefined ? { position } : { position, view };
      });
      return { entries, more: window.more };
    },
    async noteAmend(tenant, id, note) {
      const k = keys.amendNote(tenant, id);
      await conn.run('note_amend', (r) => r.set(k, JSON.stringify(note), 'PX', ttlMs));
    },
    async readAmend(tenant, id) {
      const k = keys.amendNote(tenant, id);
      const text = await conn.run('read_amend', (r) => r.get(k));
      return text === null ? undefined : decode(text, 'amend note', k, isAmendNote);
    },
  };
}

function isDecidedView(v: unknown): v is DecidedView {
  return (
    isObject(v) &&
    hasStrings(v, ['confirmationId', 'tenant', 'tool', 'requestedBy', 'outcome', 'decidedAt'])
  );
}

function isAmendNote(v: unknown): v is AmendNote {
  return (
    isObject(v) &&
    hasStrings(v, ['by', 'digest', 'reason']) &&
    isObject(v['replacedBy']) &&
    hasStrings(v['replacedBy'], ['proposalId', 'runId'])
  );
}
