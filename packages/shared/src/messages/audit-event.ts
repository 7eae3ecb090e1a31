/**
 * The audit event (DESIGN §8): one per decision, on the audit topic, for operators, analytics and
 * the SIEM. It says who asked for what, which rung decided and how, and what the agent was told,
 * with arguments redacted and never a token or a secret.
 */
import { createHash } from 'node:crypto';
import type { AnyCode, Disposition, Rung } from '../catalogue.js';
import type { StoredOutcome } from '../idempotency/index.js';
import { canonicalSha256OrUndefined } from '../idempotency/canonical-sha256.js';
import type { AnyRejected } from '../repair/index.js';
import type { Rejected } from '../decision.js';
import type { ObjectRef, Outcome } from '../types.js';
import { AUDIT_KINDS, type AuditKind, type AuditKindSpec } from './audit-kinds.js';
import { redactArguments, type RedactedValue } from './redact-arguments.js';

/** Where the message that led to the event was read: stable across redeliveries. */
export interface MessageSource {
  /** Full topic name. */
  readonly topic: string;
  readonly partition: number;
  /** Kafka offset, as kafkajs gives it (a decimal string). */
  readonly offset: string;
}

/** One audit event. Fields the deciding stage does not know are null, never absent. */
export interface AuditEvent {
  /** Deterministic: the same decision about the same message has the same id ({@link auditEventId}). */
  readonly eventId: string;
  readonly kind: AuditKind;
  /** ISO-8601 instant of the decision. */
  readonly at: string;
  readonly requestId: string | null;
  readonly runId: string | null;
  readonly proposalId: string | null;
  readonly callId: string | null;
  /** The requesting principal, from the verified session (null before authentication). */
  readonly subject: string | null;
  readonly tenant: string | null;
  readonly tool: string | null;
  readonly toolVersion: string | null;
  /** Schema registry id of the consumed message's schema, when it came in wire format. */
  readonly schemaId?: number;
  /** Subject version of that schema, when known. */
  readonly schemaVersion?: number;
  readonly policyVersion: string | null;
  /** The rung that decided (for a refusal, the one that refused); the published field name. */
  readonly stage: Rung;
  readonly disposition: Disposition | null;
  readonly code: AnyCode | null;
  /** Ids of the objects the call named, in the tool's order; an empty id is left out. */
  readonly objectIds: readonly string[];
  readonly confirmationId: string | null;
  /** The approver's subject on an approval event (approved, rejected or refused). */
  readonly decidedBy: string | null;
  readonly confirmedBy: string | null;
  readonly confirmedAt: string | null;
  readonly idempotencyKey: string | null;
  readonly commandId: string | null;
  /** The outcome of the observation published with this event; null when none was. */
  readonly outcome: Outcome | null;
  /** SHA-256 (hex) of the RFC 8785 canonical JSON of the normalized arguments. */
  readonly argsDigest: string | null;
  /** The normalized arguments, redacted ({@link redactArguments}). */
  readonly args: RedactedValue | null;
  /** For undecodable input: SHA-256 (hex) and size in bytes of the raw value. */
  readonly raw?: { readonly sha256: string; readonly bytes: number };
  /** The refusal's or fault's internal detail, at most {@link MAX_INTERNAL_DETAIL_CHARS}. */
  readonly internalDetail?: string;
  readonly source?: MessageSource;
}

/** Longest internal detail kept, in UTF-16 code units; longer ones are cut and marked. */
export const MAX_INTERNAL_DETAIL_CHARS = 2000;

/** What a stage knows about the proposal when it decides. Every field is optional. */
export interface AuditFacts {
  readonly proposalId?: string | undefined;
  readonly runId?: string | undefined;
  readonly requestId?: string | undefined;
  readonly callId?: string | undefined;
  readonly subject?: string | undefined;
  readonly tenant?: string | undefined;
  readonly tool?: string | undefined;
  readonly toolVersion?: string | undefined;
  readonly schemaId?: number | undefined;
  readonly schemaVersion?: number | undefined;
  readonly policyVersion?: string | undefined;
  readonly objects?: readonly ObjectRef[] | undefined;
  readonly confirmationId?: string | undefined;
  readonly decidedBy?: string | undefined;
  readonly confirmedBy?: string | undefined;
  readonly confirmedAt?: string | undefined;
  readonly idempotencyKey?: string | undefined;
  readonly commandId?: string | undefined;
  /** Normalized arguments: digested and redacted, never written as given. */
  readonly args?: Readonly<Record<string, unknown>> | undefined;
  /** Extra internal detail (a fault's message); a refusal's own detail is taken from it. */
  readonly internalDetail?: string | undefined;
  readonly source?: MessageSource | undefined;
}

/** The decision the event records: its kind, and what that kind needs. */
export type AuditDecision =
  | {
      readonly kind: 'rejected';
      readonly rejected: AnyRejected;
      /**
       * False when no observation was published with the refusal, so the event's outcome is null:
       * an approval refused while its confirmation keeps waiting (unauthorized approver, stale
       * digest, second approval) ends nothing, and counting it as an outcome would count a
       * proposal twice. Default true.
       */
      readonly answered?: boolean;
    }
  | {
      readonly kind: 'result';
      /**
       * A result-rung refusal or a tool error, when the output was not shown; an
       * `execution/timeout_outcome_unknown` (the tool cannot tell whether it acted) makes the
       * event's outcome `unknown_outcome`, and an `execution/timeout_retryable` (a read that did
       * not finish in time) `rejected`, as the observation's.
       */
      readonly rejected?: Rejected<'result'> | Rejected<'execution'>;
    }
  | { readonly kind: 'replay'; readonly outcome: StoredOutcome['outcome'] }
  | { readonly kind: 'quarantined'; readonly raw: Uint8Array }
  | { readonly kind: Exclude<AuditKind, 'rejected' | 'result' | 'replay' | 'quarantined'> };

/** The input of {@link auditEvent}. */
export type AuditInput = AuditFacts & AuditDecision;

/**
 * Builds the audit event of one decision at `now`. Rung (`stage`), code, disposition and outcome come from
 * {@link AUDIT_KINDS} and, where the kind takes them, from the refusal or the replayed outcome.
 * Arguments are digested (`argsDigest`, null when absent or not canonical JSON) and redacted.
 * Nothing in `facts` is a token or a secret, and nothing here adds one.
 */
export function auditEvent(input: AuditInput, now: Date): AuditEvent {
  const decided = decidedOf(input);
  const raw = input.kind === 'quarantined' ? rawOf(input.raw) : undefined;
  const detail = detailOf(input);
  const source = input.source === undefined ? undefined : { ...input.source };
  return {
    eventId: auditEventId({ ...input, ...decided, raw, source }),
    kind: input.kind,
    at: now.toISOString(),
    ...idsOf(input),
    ...(input.schemaId === undefined ? {} : { schemaId: input.schemaId }),
    ...(input.schemaVersion === undefined ? {} : { schemaVersion: input.schemaVersion }),
    policyVersion: input.policyVersion ?? null,
    ...decided,
    // An empty id names no object (the schema takes none), and the model can send one when a
    // tool's schema allows it; the refusal of such a call must still be written.
    objectIds: (input.objects ?? []).map((o) => o.id).filter((id) => id !== ''),
    ...confirmationOf(input),
    idempotencyKey: input.idempotencyKey ?? null,
    commandId: input.commandId ?? null,
    ...argsOf(input.args),
    ...(raw === undefined ? {} : { raw }),
    ...(detail === undefined ? {} : { internalDetail: detail }),
    ...(source === undefined ? {} : { source }),
  };
}

/** The parts of an event its id is derived from. */
export interface AuditIdentity {
  readonly kind: AuditKind;
  readonly tenant?: string | null | undefined;
  readonly proposalId?: string | null | undefined;
  readonly stage: Rung;
  readonly code: AnyCode | null;
  readonly source?: MessageSource | undefined;
  readonly raw?: { readonly sha256: string } | undefined;
}

/**
 * SHA-256 (hex) over the JSON array `[tenant, proposalId, stage, code, kind, source topic,
 * partition, offset, raw sha256]` (null where unknown). The same decision about the same message
 * gets the same id, so a redelivered decision can be deduplicated. The tenant is part of it
 * because a proposalId is chosen by the caller: one tenant must not be able to mint ids that
 * collide with another's events. The source is part of it so that two distinct messages (two
 * approvals of one confirmation, two identical undecodable payloads) stay two events. For a flat
 * array of strings, integers and null, `JSON.stringify` is the RFC 8785 form, and it never throws
 * on a lone surrogate in a caller's id.
 */
export function auditEventId(e: AuditIdentity): string {
  const parts = [
    e.tenant ?? null,
    e.proposalId ?? null,
    e.stage,
    e.code,
    e.kind,
    e.source?.topic ?? null,
    e.source?.partition ?? null,
    e.source?.offset ?? null,
    e.raw?.sha256 ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex');
}

type Decided = Pick<AuditEvent, 'stage' | 'code' | 'disposition' | 'outcome'>;

/** The outcome of a `result` event whose refusal says the tool did not finish in time. */
const ENDED_BY: Readonly<Record<string, Decided['outcome']>> = {
  timeout_outcome_unknown: 'unknown_outcome',
  timeout_retryable: 'rejected',
};

function decidedOf(input: AuditDecision): Decided {
  if (input.kind === 'rejected') {
    const { stage, code, disposition } = input.rejected;
    const outcome = input.answered === false ? null : AUDIT_KINDS.rejected.outcome;
    return { stage, code, disposition, outcome };
  }
  const { stage, code, disposition, outcome }: AuditKindSpec & { stage: Rung } =
    AUDIT_KINDS[input.kind];
  const decided: Decided = { stage, code, disposition, outcome };
  if (input.kind === 'result' && input.rejected !== undefined) {
    const { stage: rung, code: why } = input.rejected;
    // A tool that cannot tell whether it acted ends the call as unknown, not as a result; a read
    // that timed out ends it as a refusal the agent may retry.
    const ended = (Object.hasOwn(ENDED_BY, why) ? ENDED_BY[why] : undefined) ?? decided.outcome;
    return { ...decided, stage: rung, code: why, outcome: ended };
  }
  return input.kind === 'replay' ? { ...decided, outcome: input.outcome } : decided;
}

function idsOf(f: AuditFacts) {
  return {
    requestId: f.requestId ?? null,
    runId: f.runId ?? null,
    proposalId: f.proposalId ?? null,
    callId: f.callId ?? null,
    subject: f.subject ?? null,
    tenant: f.tenant ?? null,
    tool: f.tool ?? null,
    toolVersion: f.toolVersion ?? null,
  };
}

function confirmationOf(f: AuditFacts) {
  return {
    confirmationId: f.confirmationId ?? null,
    decidedBy: f.decidedBy ?? null,
    confirmedBy: f.confirmedBy ?? null,
    confirmedAt: f.confirmedAt ?? null,
  };
}

function argsOf(args: Readonly<Record<string, unknown>> | undefined) {
  if (args === undefined) return { argsDigest: null, args: null };
  return { argsDigest: canonicalSha256OrUndefined(args) ?? null, args: redactArguments(args) };
}

function rawOf(bytes: Uint8Array): { sha256: string; bytes: number } {
  return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.byteLength };
}

function detailOf(input: AuditInput): string | undefined {
  const own = 'rejected' in input ? input.rejected?.internalDetail : undefined;
  const parts = [own, input.internalDetail].filter((p): p is string => p !== undefined && p !== '');
  if (parts.length === 0) return undefined;
  return cut(parts.join('; '));
}

function cut(text: string): string {
  if (text.length <= MAX_INTERNAL_DETAIL_CHARS) return text;
  const kept = text.slice(0, MAX_INTERNAL_DETAIL_CHARS);
  // Never end on half of a surrogate pair.
  const whole = /[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept;
  return `${whole}… [${text.length - whole.length} more chars]`;
}
