/**
 * Decisions are values. Every rung returns `Accepted<T>` or `Rejected<R>`; nothing in the core
 * throws to say "no" (a throw in a Kafka handler means "deliver again").
 */
import { REJECTION_CODES, type CodeOf, type Disposition, type Rung } from './catalogue.js';

/** A rung's "yes", carrying what the next rung needs. */
export interface Accepted<T> {
  readonly ok: true;
  readonly value: T;
}

/**
 * A rung's "no". `publicMessage` goes to the model and says only what to fix; `internalDetail`
 * goes only to the audit topic. `stage` names the rung that refused (the field name is the one
 * observations and audit events publish). Distributes over `R`, so `Rejected` (any rung) is the
 * union of each rung's refusal and a rung's code stays tied to its rung.
 */
export type Rejected<R extends Rung = Rung> = R extends Rung
  ? {
      readonly ok: false;
      readonly stage: R;
      readonly code: CodeOf<R>;
      readonly disposition: Disposition;
      readonly publicMessage: string;
      readonly internalDetail: string;
    }
  : never;

/** The result of one rung `R`. */
export type Decision<T, R extends Rung = Rung> = Accepted<T> | Rejected<R>;

/** Wraps a value as an accepted decision. */
export function accept<T>(value: T): Accepted<T> {
  return { ok: true, value };
}

/**
 * Returns a function that builds refusals for one rung, so a rung cannot emit another rung's
 * code. The disposition comes from the catalogue; `publicMessage` defaults to the catalogue's text,
 * which also replaces an empty one.
 */
export function rejecterFor<R extends Rung>(rung: R) {
  return (
    code: CodeOf<R>,
    publicMessage: string | undefined,
    internalDetail: string,
  ): Rejected<R> => {
    const spec = (
      REJECTION_CODES[rung] as Record<string, { disposition: Disposition; publicMessage: string }>
    )[code];
    if (spec === undefined) throw new TypeError(`no code ${rung}/${code} in the catalogue`);
    const rejected = {
      ok: false,
      stage: rung,
      code,
      disposition: spec.disposition,
      // An empty text (a tool's own check may return one) would say nothing to the model, and
      // no observation may carry it: the catalogue's text stands in.
      publicMessage:
        publicMessage === undefined || publicMessage === '' ? spec.publicMessage : publicMessage,
      internalDetail,
    } as const;
    return rejected as Rejected<R>;
  };
}

/** Narrows a decision to its refusal. */
export function isRejected<T, R extends Rung>(d: Decision<T, R>): d is Rejected<R> {
  return !d.ok;
}
