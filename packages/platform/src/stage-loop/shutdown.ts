/**
 * Closing within a bound: steps run one after another, each given what is left of one deadline;
 * a step that fails or outlasts it is logged (`stop: could not …`) and the next still runs. kafkajs
 * can hang leaving a group, and a process's stop has a hard deadline of its own.
 */
import type { AdapterLogger } from '../adapter-logger.js';
import { errorFields } from './loop-support.js';

/** One step of a stop: what it does, for the log line, and the work. */
export type StopStep = readonly [what: string, work: () => Promise<unknown>];

/** Runs `steps` in order within `timeoutMs` in all, logging each that fails or runs out of time. */
export async function closeInOrder(
  steps: readonly StopStep[],
  timeoutMs: number,
  logger: AdapterLogger,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  const left = () => Math.max(1, deadline - performance.now());
  for (const [what, step] of steps) {
    await within(left(), what, step()).catch((error: unknown) =>
      logger.warn(errorFields(error), `stop: could not ${what}`),
    );
  }
}

/** Rejects with a timeout error when `work` takes longer than `ms`. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
