/**
 * The approval steps of the audit partitions held, kept in memory and bounded, with the open
 * confirmations whose parking time a person's decision is paired with.
 */
import {
  approvalStepOf,
  approvalTally,
  isPersonsDecision,
  type ApprovalEventFields,
  type ApprovalStep,
  type ApprovalTally,
} from './approval-health.js';

/** Default approval steps kept at most. */
export const DEFAULT_KEPT_APPROVAL_STEPS = 50_000;

/** Default open confirmations remembered for pairing at most; the earliest parked go first. */
export const DEFAULT_OPEN_CONFIRMATIONS = 20_000;

/** Default time approval steps are kept, ms: one day. */
export const DEFAULT_APPROVAL_STEPS_KEPT_MS = 86_400_000;

/** Options of {@link ApprovalLedger}. */
export interface ApprovalLedgerOptions {
  /** Default {@link DEFAULT_KEPT_APPROVAL_STEPS}. */
  readonly maxSteps?: number;
  /** Default {@link DEFAULT_OPEN_CONFIRMATIONS}. */
  readonly maxOpen?: number;
  /** Steps whose event time is older than this are dropped, ms; default {@link DEFAULT_APPROVAL_STEPS_KEPT_MS}. */
  readonly keepMs?: number;
}

/** The approval health of a span, and the start of the span it could measure. */
export interface ApprovalMeasure extends ApprovalTally {
  /** The span's start as measured: never before the steps held from every partition. */
  readonly sinceMs: number;
}

interface KeptStep extends ApprovalStep {
  readonly partition: number;
}

/** Approval steps of the partitions held, with their parking and decision paired. */
export class ApprovalLedger {
  private steps: KeptStep[] = [];
  private readonly open = new Map<string, number>();
  private readonly heldSince = new Map<number, number>();
  private droppedThroughMs = -Infinity;
  private readonly maxSteps: number;
  private readonly maxOpen: number;
  private readonly keepMs: number;

  constructor(options: ApprovalLedgerOptions = {}) {
    this.maxSteps = options.maxSteps ?? DEFAULT_KEPT_APPROVAL_STEPS;
    this.maxOpen = options.maxOpen ?? DEFAULT_OPEN_CONFIRMATIONS;
    this.keepMs = options.keepMs ?? DEFAULT_APPROVAL_STEPS_KEPT_MS;
  }

  /** `partition` is held from `sinceMs` on; held again, it keeps its first time. */
  hold(partition: number, sinceMs: number): void {
    if (!this.heldSince.has(partition)) this.heldSince.set(partition, sinceMs);
  }

  /** `partition` went to another owner: its steps go too. */
  release(partition: number): void {
    this.heldSince.delete(partition);
    this.steps = this.steps.filter((s) => s.partition !== partition);
  }

  /** Keeps the approval step `event` (at `atMs`) records, if any, paired with its parking. */
  record(partition: number, event: ApprovalEventFields, atMs: number, nowMs: number): void {
    const kind = approvalStepOf(event);
    if (kind === undefined) return;
    const key = JSON.stringify([event.tenant, event.confirmationId]);
    let decideMs: number | null = null;
    if (kind === 'parked') this.park(key, atMs);
    else {
      const parkedAtMs = this.open.get(key);
      this.open.delete(key);
      if (parkedAtMs !== undefined && isPersonsDecision(kind))
        decideMs = Math.max(0, atMs - parkedAtMs);
    }
    this.steps.push({ kind, atMs, tenant: event.tenant, decideMs, partition });
    this.trim(nowMs);
  }

  /**
   * The approval health of `[sinceMs, untilMs)`, of `tenant` alone when given. The span starts no
   * earlier than every partition held was held and no step dropped, so it never claims what it
   * could not see.
   */
  health(span: { sinceMs: number; untilMs: number }, tenant?: string): ApprovalMeasure {
    const held = [...this.heldSince.values()];
    const coveredFromMs =
      held.length === 0 ? span.untilMs : Math.max(...held, this.droppedThroughMs + 1);
    const sinceMs = Math.min(Math.max(span.sinceMs, coveredFromMs), span.untilMs);
    const steps = tenant === undefined ? this.steps : this.steps.filter((s) => s.tenant === tenant);
    return { sinceMs, ...approvalTally(steps, { sinceMs, untilMs: span.untilMs }) };
  }

  private park(key: string, atMs: number): void {
    this.open.delete(key);
    this.open.set(key, atMs);
    if (this.open.size <= this.maxOpen) return;
    const [earliest] = this.open.keys();
    if (earliest !== undefined) this.open.delete(earliest);
  }

  private trim(nowMs: number): void {
    const oldestKept = nowMs - this.keepMs;
    let drop = Math.max(0, this.steps.length - this.maxSteps);
    while (drop < this.steps.length && this.steps[drop]!.atMs < oldestKept) drop += 1;
    if (drop === 0) return;
    for (const s of this.steps.slice(0, drop)) {
      this.droppedThroughMs = Math.max(this.droppedThroughMs, s.atMs);
    }
    this.steps = this.steps.slice(drop);
  }
}
