/**
 * The life of a stage loop as one explicit state. It starts in `starting` (connecting, joining),
 * is `running` once it consumes, and ends either through `stopping` in `stopped` (asked to stop,
 * or its start failed) or in `crashed` (it stopped on its own: its producer was fenced, or its
 * consumer crashed and kafkajs does not restart it). Each change is logged with the new `state`
 * and the one before, and reported to the metrics (`toolgate_stage_state`).
 */
import type { AdapterLogger } from '../adapter-logger.js';

/** Every state of a stage loop, in the order of its life. */
export const STAGE_LOOP_STATES = ['starting', 'running', 'stopping', 'stopped', 'crashed'] as const;

/** One of {@link STAGE_LOOP_STATES}. */
export type StageLoopState = (typeof STAGE_LOOP_STATES)[number];

/** Where each state may go; `stopped` and `crashed` are final. */
const NEXT: Readonly<Record<StageLoopState, readonly StageLoopState[]>> = {
  starting: ['running', 'stopping', 'crashed'],
  running: ['stopping', 'crashed'],
  // A stop whose last transaction finds the producer fenced crashed after all.
  stopping: ['stopped', 'crashed'],
  stopped: [],
  crashed: [],
};

/** The log line on entering each state; a crash is an error, the rest are news. */
const ENTRY_LINES: Readonly<Record<StageLoopState, string>> = {
  starting: 'stage loop starting',
  running: 'stage loop running',
  stopping: 'stage loop stopping',
  stopped: 'stage loop stopped',
  crashed: 'stage loop stopped on its own',
};

/** True while the loop may still consume or produce: it has not begun to stop. */
export function isActive(state: StageLoopState): boolean {
  return state === 'starting' || state === 'running';
}

/** A loop's current state; changes only as {@link NEXT} allows, each one logged and reported. */
export class LoopState {
  private current: StageLoopState = 'starting';

  constructor(
    private readonly logger: AdapterLogger,
    private readonly report: ((state: StageLoopState) => void) | undefined,
  ) {
    this.logger.info({ state: this.current }, ENTRY_LINES[this.current]);
    this.report?.(this.current);
  }

  /** The state the loop is in now. */
  get(): StageLoopState {
    return this.current;
  }

  /**
   * Enters `next` if the current state may go there, logging the change with `fields`; false
   * (nothing logged) when it may not, e.g. a second crash, or a stop after a crash.
   */
  moveTo(next: StageLoopState, fields: object = {}): boolean {
    const from = this.current;
    if (!NEXT[from].includes(next)) return false;
    this.current = next;
    const line = { ...fields, state: next, from };
    if (next === 'crashed') this.logger.error(line, ENTRY_LINES[next]);
    else this.logger.info(line, ENTRY_LINES[next]);
    this.report?.(next);
    return true;
  }
}
