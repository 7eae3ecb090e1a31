import { DEFAULT_REPAIR_BUDGET } from '../repair/repairable-rungs.js';

/** The gate's ceilings (DESIGN §7): configurable, enforced, audited. Counts are per call. */
export interface Ceilings {
  /** UTF-8 bytes of a call's arguments text. Default 16 KiB, at most {@link MAX_ARGUMENT_BYTES}. */
  readonly argumentBytes: number;
  /** Nesting depth of a call's arguments. Default 32, at most {@link MAX_ARGUMENT_DEPTH}. */
  readonly maxDepth: number;
  /** Corrections a model may make to one call; 0 turns repair off. Default 2. */
  readonly repairAttempts: number;
  /** Tool calls one run may make. Default 50. */
  readonly callsPerRun: number;
  /** Tool calls one tenant may make per second. Default 100. */
  readonly callsPerTenantPerSecond: number;
  /**
   * Tool calls one user (a tenant's session subject) may make per second. Default 50, so one
   * user's loop leaves the rest of the tenant's rate to its other users; a value above
   * `callsPerTenantPerSecond` never binds.
   */
  readonly callsPerUserPerSecond: number;
  /**
   * UTF-8 bytes of a tool's serialized output shown to the model. Default 64 KiB, at most
   * {@link MAX_RESULT_BYTES}. A tool's own `result.maxBytes` defaults to it and may not exceed it
   * (refused at start-up).
   */
  readonly resultBytes: number;
  /**
   * Milliseconds a tool may take before its outcome is unknown. Default 10 s, at most
   * {@link MAX_TOOL_TIMEOUT_MS}. A tool's own `timeoutMs` defaults to it and may not exceed it
   * (refused at start-up).
   */
  readonly toolTimeoutMs: number;
}

/** The ceilings a deployment gets when it sets none. Frozen. */
export const DEFAULT_CEILINGS: Ceilings = Object.freeze({
  argumentBytes: 16 * 1024,
  maxDepth: 32,
  repairAttempts: DEFAULT_REPAIR_BUDGET,
  callsPerRun: 50,
  callsPerTenantPerSecond: 100,
  callsPerUserPerSecond: 50,
  resultBytes: 64 * 1024,
  toolTimeoutMs: 10_000,
});

/**
 * The largest `toolTimeoutMs` a deployment may set: one day. A command's deadline must fall within
 * the 24 h its commands topic keeps it, and well within the 7 days its idempotency record and its
 * pending command are kept in Redis: a command still waiting when they expire would get no unknown
 * outcome, could not be matched to its result, and a retry of its call would claim the key again
 * and publish a second command. (It is also below the longest delay Node's timers honour.)
 */
export const MAX_TOOL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/*
 * Every message the gate writes about a call must fit in one Kafka record, which the platform
 * keeps under 1,000,000 bytes (Kafka's default `message.max.bytes` is 1 MiB): a larger one could
 * never be sent, and its call would end in an internal error, or, for an output, with no answer.
 * Arguments travel once in an envelope, a command and a confirmation request; an output travels
 * in the observation as a JSON string, where escaping can make a byte six (`\u0001`).
 */
/** The largest `argumentBytes` a deployment may set: 256 KiB. */
export const MAX_ARGUMENT_BYTES = 256 * 1024;
/** The largest `resultBytes` a deployment may set: 128 KiB, six times which still fits a record. */
export const MAX_RESULT_BYTES = 128 * 1024;

/**
 * The largest `maxDepth` a deployment may set: 60. Every message is read within 64 levels of
 * nesting (the codec's envelope ceiling, and a line of `toolgate evaluate`), and the deepest carrier
 * of arguments is a line of `toolgate evaluate` holding an MCP request: line → proposal → call →
 * params → arguments, four levels down (a proposal on Kafka carries them three down, envelopes and
 * commands one). Deeper arguments that the ceiling let through could not be written on: the call
 * would end in an internal error instead of `representation/too_deep`.
 */
export const MAX_ARGUMENT_DEPTH = 60;

/** The smallest and largest value each ceiling accepts. */
const BOUNDS: Readonly<Record<keyof Ceilings, readonly [min: number, max: number]>> = {
  argumentBytes: [1, MAX_ARGUMENT_BYTES],
  maxDepth: [1, MAX_ARGUMENT_DEPTH],
  repairAttempts: [0, Number.MAX_SAFE_INTEGER],
  callsPerRun: [1, Number.MAX_SAFE_INTEGER],
  callsPerTenantPerSecond: [1, Number.MAX_SAFE_INTEGER],
  callsPerUserPerSecond: [1, Number.MAX_SAFE_INTEGER],
  resultBytes: [1, MAX_RESULT_BYTES],
  toolTimeoutMs: [1, MAX_TOOL_TIMEOUT_MS],
};

/**
 * Thrown by {@link resolveCeilings} for bad configuration. `problems` names every problem, so the
 * process can stop at start with one message (STYLE, Configuration). Not retriable.
 */
export class CeilingsConfigError extends Error {
  /** Stable error code for the stage loop and logs. */
  readonly code = 'invalid_ceilings';
  /** Configuration does not fix itself: never deliver again. */
  readonly retriable = false;
  /** One line per problem, in the order of the `Ceilings` fields, then unknown keys. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid ceilings: ${problems.join('; ')}`);
    this.name = 'CeilingsConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

/**
 * Validates ceilings given as partial input over {@link DEFAULT_CEILINGS} and returns them frozen.
 * Every value must be a safe integer of at least 1, except `repairAttempts`, which may be 0 to turn
 * repair off; `toolTimeoutMs` is at most {@link MAX_TOOL_TIMEOUT_MS} (one day), so that a command
 * ends before the gate forgets it;
 * `argumentBytes` and `resultBytes` are at most {@link MAX_ARGUMENT_BYTES} and
 * {@link MAX_RESULT_BYTES}, so that what the gate writes about a call fits a Kafka record, and
 * `maxDepth` at most {@link MAX_ARGUMENT_DEPTH}, so that it fits the nesting messages are read
 * within. Unknown
 * keys (a misspelt ceiling would otherwise be silently ignored) and `undefined` values are problems.
 *
 * Throws rather than returning a decision: a bad ceiling is a start-up configuration fault, not a
 * refusal of a proposal, and the process must not start half-configured.
 *
 * @throws CeilingsConfigError listing every problem at once.
 */
export function resolveCeilings(input: Partial<Ceilings>): Ceilings {
  const problems = [...fieldProblems(input), ...unknownKeys(input)];
  if (problems.length > 0) throw new CeilingsConfigError(problems);
  return Object.freeze({ ...DEFAULT_CEILINGS, ...input });
}

function fieldProblems(input: Partial<Ceilings>): string[] {
  return (Object.keys(BOUNDS) as (keyof Ceilings)[]).flatMap((name) => {
    if (!Object.hasOwn(input, name)) return [];
    const value: unknown = input[name];
    const [min, max] = BOUNDS[name];
    const ok = Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
    const why = Object.hasOwn(WHY_AT_MOST, name) ? ` (${WHY_AT_MOST[name] ?? ''})` : '';
    return ok ? [] : [`${name} must be an integer from ${min} to ${max}${why}, got ${show(value)}`];
  });
}

/** Why a ceiling has the upper bound it has, where that is not plain. */
const WHY_AT_MOST: Partial<Record<keyof Ceilings, string>> = {
  argumentBytes: 'larger arguments would not fit a Kafka record',
  maxDepth: 'deeper arguments would not fit the nesting every message is read within',
  resultBytes: 'a larger output, escaped, would not fit a Kafka record',
  toolTimeoutMs: 'a command must end well before its idempotency record and pending command expire',
};

function unknownKeys(input: object): string[] {
  return Object.keys(input)
    .filter((key) => !Object.hasOwn(BOUNDS, key))
    .map((key) => `${JSON.stringify(key)} is not a ceiling`);
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
