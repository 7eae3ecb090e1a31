/**
 * A closed window's final counts as records of the refusal-stats topic: one `window` record with
 * the totals, then one record per combination of decision dimensions, per principal and per run.
 * Each is keyed by the window, the source partition and its dimensions, so that the compacted
 * topic keeps exactly one answer per key.
 */
import { closed, count, instant, requires, when } from '../../messages/schema-parts.js';
import type { MessageSchema } from '../../messages/schema-parts.js';
import { WINDOW_SIZES } from '../analytics-types.js';
import type { ClosedBy, FinalWindow } from './partition-windows.js';
import type {
  DecisionCount,
  PrincipalRefusals,
  RunRefusals,
  WindowCounts,
} from './window-counts.js';

/** What a refusal-stats record counts. */
export const WINDOW_RECORD_KINDS = ['window', 'decision', 'principal', 'run'] as const;

/** One record kind. */
export type WindowRecordKind = (typeof WINDOW_RECORD_KINDS)[number];

/** The fields every refusal-stats record has. */
interface WindowRecordBase {
  readonly kind: WindowRecordKind;
  readonly size: keyof typeof WINDOW_SIZES;
  /** ISO-8601, inclusive. */
  readonly windowStart: string;
  /** ISO-8601, exclusive. */
  readonly windowEnd: string;
  /** The audit topic partition counted (windows are per source partition). */
  readonly partition: number;
  readonly closedBy: ClosedBy;
}

/** One value of the refusal-stats topic. */
export type WindowRecordValue = WindowRecordBase &
  (
    | {
        readonly kind: 'window';
        readonly events: number;
        readonly refusals: number;
        readonly late: number;
        readonly invalid: number;
      }
    | ({ readonly kind: 'decision' } & DecisionCount)
    | ({ readonly kind: 'principal' } & PrincipalRefusals)
    | ({ readonly kind: 'run' } & RunRefusals)
  );

/** A record to write: its key (a JSON array as text) and value. */
export interface WindowRecord {
  readonly key: string;
  readonly value: WindowRecordValue;
}

/**
 * The records of one final window, the `window` record first. Key: the JSON array
 * `[size, windowStart, partition, kind, ...dimensions]`, e.g.
 * `["minute","2026-12-07T12:00:00.000Z",3,"decision","acme","search","authorization","not_authorized","final",true]`.
 */
export function windowRecords(final: FinalWindow): WindowRecord[] {
  const c = final.counts;
  const base = baseOf(c, final.closedBy);
  const at = [c.size, base.windowStart, c.partition];
  const key = (...parts: readonly (string | number | boolean | null)[]) =>
    JSON.stringify([...at, ...parts]);
  return [
    {
      key: key('window'),
      value: {
        ...base,
        kind: 'window',
        events: c.events,
        refusals: c.refusals,
        late: c.late,
        invalid: c.invalid,
      },
    },
    ...c.decisions.map((d) => ({
      key: key('decision', d.tenant, d.tool, d.rung, d.code, d.disposition, d.refusal),
      value: { ...base, kind: 'decision' as const, ...d },
    })),
    ...c.principals.map((p) => ({
      key: key('principal', p.tenant, p.subject),
      value: { ...base, kind: 'principal' as const, ...p },
    })),
    ...c.runs.map((r) => ({
      key: key('run', r.tenant, r.runId),
      value: { ...base, kind: 'run' as const, ...r },
    })),
  ];
}

function baseOf(c: WindowCounts, closedBy: ClosedBy): Omit<WindowRecordBase, 'kind'> {
  return {
    size: c.size,
    windowStart: new Date(c.startMs).toISOString(),
    windowEnd: new Date(c.endMs).toISOString(),
    partition: c.partition,
    closedBy,
  };
}

const nullable = { type: ['string', 'null'] } as const;
const str = { type: 'string' } as const;

/** The JSON Schema of refusal-stats values, registered as `<topic>-value`. */
export const windowRecordSchema: MessageSchema = closed(
  'RefusalStatsRecord',
  {
    kind: { enum: WINDOW_RECORD_KINDS },
    size: { enum: Object.keys(WINDOW_SIZES) },
    windowStart: instant,
    windowEnd: instant,
    partition: count,
    closedBy: { enum: ['watermark', 'idle'] },
    events: count,
    refusals: count,
    late: count,
    invalid: count,
    tenant: nullable,
    tool: nullable,
    rung: str,
    code: nullable,
    disposition: nullable,
    refusal: { type: 'boolean' },
    count,
    subject: str,
    runId: str,
  },
  ['kind', 'size', 'windowStart', 'windowEnd', 'partition', 'closedBy'],
  {
    allOf: [
      when({ kind: { const: 'window' } }, requires('events', 'refusals', 'late', 'invalid')),
      when(
        { kind: { const: 'decision' } },
        requires('tenant', 'tool', 'rung', 'code', 'disposition', 'refusal', 'count'),
      ),
      when({ kind: { const: 'principal' } }, requires('tenant', 'subject', 'refusals')),
      when({ kind: { const: 'run' } }, requires('tenant', 'runId', 'refusals')),
    ],
  },
);
