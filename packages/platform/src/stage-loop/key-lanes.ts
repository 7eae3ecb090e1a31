/**
 * Which message of a chunk runs when: messages with the same key (a run, a tenant) in offset
 * order, different keys side by side, at most `lanesAtOnce` keys at a time, so one message's Redis
 * round trips do not hold up the chunk. A message's handler may release its key once it has sent
 * the steps whose order matters; the key's next message starts then rather than when the message
 * is handled (decision 0002).
 *
 * Pure scheduling: no Kafka, no clock, no timers. It is handed each message's key and a function
 * that handles one message, and answers which prefix of the chunk was handled in full.
 */

/** How handling one message ended: handled, with what it produced, or halted. */
export type LaneStep<R, H> = { readonly handled: R } | { readonly halted: H };

/** A chunk's messages, and how to handle one. */
export interface KeyLaneWork<R, H> {
  /**
   * Each message's key, in offset order: messages with equal keys are one lane, handled in
   * this order.
   */
  readonly keys: readonly string[];
  /**
   * Lanes handled at the same time, at least 1. With 1, every message runs in offset order in one
   * lane whatever its key, and releasing a key does nothing.
   */
  readonly lanesAtOnce: number;
  /**
   * Handles message `index`. `release()` lets the next message of the same key start before
   * this one ends. Resolves `halted` to leave this message, and every message not yet started,
   * for a later delivery; rejects only on a bug, which rejects the whole chunk.
   */
  handle(index: number, release: () => void): Promise<LaneStep<R, H>>;
  /** Asked before each message starts: false leaves it, and the rest of its lane, unstarted. */
  mayStart(): boolean;
}

/** What handling a chunk came to. */
export interface KeyLaneOutcome<R, H> {
  /**
   * What the longest prefix of the chunk handled in full produced, in offset order. Messages a
   * lane handled past it are not in it: they are delivered again.
   */
  readonly handled: readonly R[];
  /** Why the first message that halted did, if one did. */
  readonly halt?: H;
}

/**
 * Handles a chunk's messages in key lanes and answers the prefix handled in full. A lane whose
 * next message would start after a halt, or when `mayStart()` says no, ends there; messages
 * already started still finish.
 */
export async function runKeyLanes<R, H>(work: KeyLaneWork<R, H>): Promise<KeyLaneOutcome<R, H>> {
  const results: R[] = [];
  // The first index not handled in full, and the first halt.
  let end = work.keys.length;
  let halt: { readonly reason: H } | undefined;
  const leaveFrom = (index: number) => (end = Math.min(end, index));

  const handleAt = async (index: number, release: () => void) => {
    const step = await work.handle(index, release);
    if ('handled' in step) {
      results[index] = step.handled;
      return;
    }
    halt ??= { reason: step.halted };
    leaveFrom(index);
  };
  const releases = work.lanesAtOnce > 1;
  const runLane = async (lane: readonly number[]) => {
    const started: Promise<void>[] = [];
    for (const index of lane) {
      if (halt !== undefined || !work.mayStart()) {
        leaveFrom(index);
        break;
      }
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const handled = handleAt(index, releases ? release : () => undefined);
      started.push(handled);
      // The key's next message starts once this one released the key or ended.
      await Promise.race([released, handled.catch(() => undefined)]);
    }
    await Promise.all(started);
  };
  const queue = lanesOf(work.keys, work.lanesAtOnce);
  const worker = async () => {
    for (let lane = queue.shift(); lane !== undefined; lane = queue.shift()) await runLane(lane);
  };
  const workers = Math.min(work.lanesAtOnce, queue.length);
  const settled = await Promise.allSettled(Array.from({ length: workers }, worker));
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  const handled = results.slice(0, end);
  return halt === undefined ? { handled } : { handled, halt: halt.reason };
}

/** The chunk's indexes in the lanes they run in, each lane in offset order. */
export function lanesOf(keys: readonly string[], lanesAtOnce: number): number[][] {
  // One at a time means one lane in offset order, whatever the keys.
  if (lanesAtOnce <= 1) return keys.length === 0 ? [] : [keys.map((_, index) => index)];
  const lanes = new Map<string, number[]>();
  keys.forEach((key, index) => {
    const lane = lanes.get(key);
    if (lane === undefined) lanes.set(key, [index]);
    else lane.push(index);
  });
  return [...lanes.values()];
}
