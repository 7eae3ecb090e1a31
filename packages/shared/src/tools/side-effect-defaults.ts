/**
 * What a tool's side-effect class decides by default (DESIGN §3, §5): how a call that outlived its
 * deadline is reported, what its idempotency key is scoped to, and whether a person confirms it.
 * This table is the one place those defaults live: the confirmation rung, the idempotency key, the
 * deadline sweep and the result handler read it, and `docs/side-effect-classes.md` is generated
 * from it (`npm run docs:side-effects`).
 */
import type { SideEffect } from '../types.js';

/** How a call that did not end by its deadline is reported. */
export type TimeoutDisposition =
  /**
   * `rejected`, `execution/timeout_retryable`, disposition `retry`: the tool changes nothing, so
   * proposing the call again is safe, and a new proposal runs again.
   */
  | 'retry'
  /**
   * `unknown_outcome`, `execution/timeout_outcome_unknown`, disposition `deny`: the change may
   * have been made; a retry looks the key up and is replayed what is recorded there.
   */
  | 'unknown_outcome';

/** What a call's idempotency key is derived from, and so what it deduplicates. */
export type IdempotencyScope =
  /**
   * The call: (tenant, subject, requestId, callId). Claimed before the command is published; a
   * retry of the call by the same user is replayed the stored outcome, never run again.
   */
  | 'call'
  /**
   * One proposal: (tenant, subject, requestId, callId, proposalId). Redeliveries of that proposal
   * publish one command and get one terminal observation; a new proposal of the same call runs
   * again and is never replayed an older answer.
   */
  | 'proposal';

/** When a person must approve a call before it runs. */
export type ConfirmationDefault =
  /** Always; the tool cannot opt out. */
  | 'always'
  /** Only when the tool's `requiresConfirmation(args, objects)` says so (default: never). */
  | 'when the tool asks';

/** The defaults of one side-effect class. */
export interface SideEffectDefaults {
  readonly onTimeout: TimeoutDisposition;
  readonly idempotencyScope: IdempotencyScope;
  readonly confirmation: ConfirmationDefault;
}

/**
 * The defaults of each side-effect class. A read changes nothing: a timeout may be retried, and a
 * retry runs again (fresh data) rather than replaying an older answer or an older timeout. A
 * write's or destructive call's timeout leaves the world unknown: it is never reported as safe to
 * repeat, and its key (claimed per call) makes a retry a look-up. Destructive calls always wait
 * for a person. A tool overrides only the confirmation, through `requiresConfirmation`, and a
 * destructive tool cannot opt out.
 */
export const SIDE_EFFECT_DEFAULTS = {
  read: { onTimeout: 'retry', idempotencyScope: 'proposal', confirmation: 'when the tool asks' },
  write: {
    onTimeout: 'unknown_outcome',
    idempotencyScope: 'call',
    confirmation: 'when the tool asks',
  },
  destructive: { onTimeout: 'unknown_outcome', idempotencyScope: 'call', confirmation: 'always' },
} as const satisfies Readonly<Record<SideEffect, SideEffectDefaults>>;

/** The side-effect classes, in the table's order. */
export const SIDE_EFFECT_CLASSES = Object.keys(SIDE_EFFECT_DEFAULTS) as readonly SideEffect[];

/**
 * The defaults of `sideEffect`; for a class this table does not know (a tool no longer loaded, a
 * value from outside the type), the most careful ones: those of `destructive`.
 */
export function sideEffectDefaults(sideEffect: SideEffect | undefined): SideEffectDefaults {
  return isSideEffect(sideEffect)
    ? SIDE_EFFECT_DEFAULTS[sideEffect]
    : SIDE_EFFECT_DEFAULTS.destructive;
}

/** True when `value` is a class of {@link SIDE_EFFECT_DEFAULTS}. */
export function isSideEffect(value: unknown): value is SideEffect {
  return typeof value === 'string' && Object.hasOwn(SIDE_EFFECT_DEFAULTS, value);
}
