/**
 * Decisions are values. Every rung returns `Accepted<T>` or `Rejected<S>`; nothing in the core
 * throws to say "no" (a throw in a Kafka handler means "deliver again").
 */
import { REJECTION_CODES, type CodeOf, type Disposition, type Stage } from './catalogue.js';

/** A rung's "yes", carrying what the next rung needs. */
export interface Accepted<T> {
  readonly ok: true;
  readonly value: T;
}

/**
 * A rung's "no". `publicMessage` goes to the model and says only what to fix; `internalDetail`
 * goes only to the audit topic. Distributes over `S`, so `Rejected` (any stage) is the union of
 * each stage's refusal and a stage's code stays tied to its stage.
 */
export type Rejected<S extends Stage = Stage> = S extends Stage
  ? {
      readonly ok: false;
      readonly stage: S;
      readonly code: CodeOf<S>;
      readonly disposition: Disposition;
      readonly publicMessage: string;
      readonly internalDetail: string;
    }
  : never;

/** The result of one rung for stage `S`. */
export type Decision<T, S extends Stage = Stage> = Accepted<T> | Rejected<S>;

/** Wraps a value as an accepted decision. */
export function accept<T>(value: T): Accepted<T> {
  return { ok: true, value };
}

/**
 * Returns a function that builds refusals for one stage, so a stage cannot emit another stage's
 * code. The disposition comes from the catalogue; `publicMessage` defaults to the catalogue's text,
 * which also replaces an empty one.
 */
export function rejecterFor<S extends Stage>(stage: S) {
  return (
    code: CodeOf<S>,
    publicMessage: string | undefined,
    internalDetail: string,
  ): Rejected<S> => {
    const spec = (
      REJECTION_CODES[stage] as Record<string, { disposition: Disposition; publicMessage: string }>
    )[code];
    if (spec === undefined) throw new TypeError(`no code ${stage}/${code} in the catalogue`);
    const rejected = {
      ok: false,
      stage,
      code,
      disposition: spec.disposition,
      // An empty text (a tool's own check may return one) would say nothing to the model, and
      // no observation may carry it: the catalogue's text stands in.
      publicMessage:
        publicMessage === undefined || publicMessage === '' ? spec.publicMessage : publicMessage,
      internalDetail,
    } as const;
    return rejected as Rejected<S>;
  };
}

/** Narrows a decision to its refusal. */
export function isRejected<T, S extends Stage>(d: Decision<T, S>): d is Rejected<S> {
  return !d.ok;
}
