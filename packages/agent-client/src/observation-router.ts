/**
 * Hands observations to whoever waits for them, by proposalId. The observations topic carries
 * every agent's observations, so only those of proposals this client submitted are kept for a
 * later `wait` (an observation can arrive before its `wait` is called), up to a bound; the rest
 * are dropped unless someone already waits for them.
 */
import type { AdapterLogger } from '@toolgate/platform/adapter-logger';
import type { Observation } from '@toolgate/shared';
import { ObservationTimeoutError } from './agent-client-error.js';
import { isTerminal } from './is-observation.js';

/** How long {@link ObservationRouter.wait} waits by default, in milliseconds. */
export const DEFAULT_OBSERVATION_TIMEOUT_MS = 30_000;

/**
 * The longest wait, in milliseconds: 2^31−1 (about 24.8 days), the longest delay Node's timers
 * honour. A longer one would fire at once, so it is refused instead of ending the wait at once.
 */
export const MAX_OBSERVATION_TIMEOUT_MS = 2 ** 31 - 1;

/** How many submitted proposals' observations are kept until awaited, by default. */
export const DEFAULT_BUFFER_LIMIT = 1_000;

/** Options of one wait for an observation. */
export interface AwaitOptions {
  /**
   * How long to wait for the terminal observation, in milliseconds; default
   * {@link DEFAULT_OBSERVATION_TIMEOUT_MS}, at most {@link MAX_OBSERVATION_TIMEOUT_MS}. A call that
   * needs a person's approval can take minutes.
   */
  readonly timeoutMs?: number;
  /**
   * Called with a `pending_confirmation` observation (the call waits for a person); waiting
   * continues. An exception it throws is logged and otherwise ignored.
   */
  readonly onPending?: (observation: Observation) => void;
}

/** Options of {@link createObservationRouter}. */
export interface ObservationRouterOptions {
  /**
   * How many submitted proposals are remembered, with their observations until awaited; the
   * oldest is forgotten first. Default {@link DEFAULT_BUFFER_LIMIT}.
   */
  readonly bufferLimit?: number;
  readonly logger: AdapterLogger;
}

/** The dispatcher between the observation consumer and the waiting calls. */
export interface ObservationRouter {
  /**
   * Remembers a proposal this client submitted, so its observations are kept until awaited.
   * False, changing nothing, when it is remembered already (submitted, its terminal observation
   * not yet awaited), unless its send failed ({@link sendFailed}): then it may be sent again.
   */
  track(proposalId: string): boolean;
  /**
   * Says that the send of a tracked proposal failed. It stays tracked, since a send that failed
   * may still have reached Kafka and be answered, and {@link track} takes it again.
   */
  sendFailed(proposalId: string): void;
  /** Hands `observation` to its waiters, keeps it for a tracked proposal, or drops it. */
  deliver(observation: Observation): void;
  /**
   * The terminal observation of `proposalId` (one already kept, or the next to arrive). Rejects
   * with {@link ObservationTimeoutError} after the timeout, with the failure after {@link fail}.
   */
  wait(proposalId: string, options?: AwaitOptions): Promise<Observation>;
  /** Rejects every waiter, and every later wait, with `error`. */
  fail(error: Error): void;
  /** How many calls wait and how many proposals are remembered. */
  counts(): { readonly waiting: number; readonly tracked: number };
}

interface Waiter {
  readonly resolve: (observation: Observation) => void;
  readonly reject: (error: Error) => void;
  readonly onPending: ((observation: Observation) => void) | undefined;
  timer?: NodeJS.Timeout;
}

interface Kept {
  pending?: Observation;
  terminal?: Observation;
  /** Its last send failed, so it may be submitted again. */
  unsent?: boolean;
}

/** A router with nothing tracked and nobody waiting. */
export function createObservationRouter(options: ObservationRouterOptions): ObservationRouter {
  const limit = options.bufferLimit ?? DEFAULT_BUFFER_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`bufferLimit must be a positive integer, not ${limit}`);
  }
  return new Router(limit, options.logger);
}

class Router implements ObservationRouter {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly kept = new Map<string, Kept>();
  private failure: Error | undefined;

  constructor(
    private readonly limit: number,
    private readonly logger: AdapterLogger,
  ) {}

  track(proposalId: string): boolean {
    const known = this.kept.get(proposalId);
    if (known !== undefined) {
      if (known.unsent !== true) return false;
      known.unsent = false;
      return true;
    }
    this.kept.set(proposalId, {});
    // Maps iterate in insertion order: the first key is the proposal submitted longest ago.
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= this.limit) break;
      this.kept.delete(oldest);
    }
    return true;
  }

  sendFailed(proposalId: string): void {
    const known = this.kept.get(proposalId);
    if (known !== undefined) known.unsent = true;
  }

  deliver(observation: Observation): void {
    const id = observation.proposalId;
    const set = this.waiters.get(id);
    if (set !== undefined) {
      if (isTerminal(observation)) this.settle(id, observation);
      else for (const waiter of set) this.tell(waiter, observation);
      return;
    }
    const entry = this.kept.get(id);
    if (entry === undefined) return;
    // A redelivered terminal observation does not replace the first.
    if (isTerminal(observation)) entry.terminal ??= observation;
    else entry.pending = observation;
  }

  wait(proposalId: string, options: AwaitOptions = {}): Promise<Observation> {
    const { timeoutMs = DEFAULT_OBSERVATION_TIMEOUT_MS, onPending } = options;
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (!(timeoutMs > 0 && timeoutMs <= MAX_OBSERVATION_TIMEOUT_MS)) {
      const bound = `positive and at most ${MAX_OBSERVATION_TIMEOUT_MS}`;
      return Promise.reject(new RangeError(`timeoutMs must be ${bound}, not ${timeoutMs}`));
    }
    const entry = this.kept.get(proposalId);
    if (entry?.terminal !== undefined) {
      this.kept.delete(proposalId);
      return Promise.resolve(entry.terminal);
    }
    return new Promise<Observation>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, onPending };
      waiter.timer = setTimeout(() => {
        this.forget(proposalId, waiter);
        reject(new ObservationTimeoutError(proposalId, timeoutMs));
      }, timeoutMs);
      this.waiters.set(proposalId, (this.waiters.get(proposalId) ?? new Set()).add(waiter));
      if (entry?.pending !== undefined) this.tell(waiter, entry.pending);
    });
  }

  fail(error: Error): void {
    this.failure ??= error;
    for (const set of this.waiters.values()) {
      for (const waiter of set) {
        clearTimeout(waiter.timer);
        waiter.reject(this.failure);
      }
    }
    this.waiters.clear();
    this.kept.clear();
  }

  counts(): { readonly waiting: number; readonly tracked: number } {
    let waiting = 0;
    for (const set of this.waiters.values()) waiting += set.size;
    return { waiting, tracked: this.kept.size };
  }

  private settle(proposalId: string, observation: Observation): void {
    const set = this.waiters.get(proposalId);
    this.waiters.delete(proposalId);
    this.kept.delete(proposalId);
    for (const waiter of set ?? []) {
      clearTimeout(waiter.timer);
      waiter.resolve(observation);
    }
  }

  private tell(waiter: Waiter, observation: Observation): void {
    try {
      waiter.onPending?.(observation);
    } catch (error) {
      this.logger.warn(
        { proposalId: observation.proposalId, err: error },
        'the onPending callback threw; still waiting for the terminal observation',
      );
    }
  }

  private forget(proposalId: string, waiter: Waiter): void {
    const set = this.waiters.get(proposalId);
    set?.delete(waiter);
    if (set?.size === 0) this.waiters.delete(proposalId);
  }
}
