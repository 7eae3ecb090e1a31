/**
 * The driver: sends proposals to a system (open loop on a schedule, or as many as a window of
 * outstanding proposals allows), reads terminal observations, approves confirmation requests as a
 * scripted approver, and keeps each run's latency histogram. It plays the agents and the approver;
 * its own CPU is not part of any system's cost. It uses the bus it is given (the stack's admin in
 * `npm run bench`) and reads every tenant's observations topic; it does not verify the gate's
 * signatures on them (an agent does that on its own machine, at a cost measured apart).
 */
import type { Bus, BusProducer, OutRecord } from '@toolgate/platform';
import { startApprover } from './approver.js';
import { consume } from './consume.js';
import { createHistogram, type Histogram } from './histogram.js';
import type { SystemName } from './summarize.js';
import {
  answers,
  decodeValue,
  outbound,
  outcomeOf,
  unattended,
  type Outbound,
  type TrafficFacts,
} from './traffic.js';

/** What one run measured. */
export interface RunResult {
  readonly sent: number;
  readonly completed: number;
  readonly lost: number;
  /** Completions per second in the measured window. */
  readonly throughput: number;
  readonly histogram: Histogram;
  /**
   * The calls no person has to approve (the relay's: all of them). A confirmation waits for the
   * approver, two more trips through Kafka that no relay message makes.
   */
  readonly unattended: Histogram;
  /** Terminal observations by {@link outcomeOf} (`result`, `rejected limits/rate_limited`, …). */
  readonly outcomes: ReadonlyMap<string, number>;
}

/** Called at the start and the end of the measured window (to read CPU counters). */
export interface WindowMarks {
  atStart?(): void;
  atEnd?(completedInWindow: number): void;
}

/** Options of {@link createLoadDriver}. */
export interface DriverOptions {
  readonly bus: Bus;
  readonly facts: TrafficFacts;
  readonly groupPrefix: string;
  /** Topics the terminal observations of every system arrive on. */
  readonly observationTopics: readonly string[];
  /** The gate's confirmation requests and approvals topics. */
  readonly confirmationsTopic: string;
  readonly approvalsTopic: string;
  /** The approver's session token per tenant. */
  readonly approverTokens: Readonly<Record<string, string>>;
  /** Progress lines. */
  readonly progress: (line: string) => void;
  /** How long to wait for stragglers after the last send. Default 60 s. */
  readonly drainMs?: number;
  /** Keep each answered proposal's {@link CallTime} (see `LoadDriver.callTimes`). */
  readonly keepCallTimes?: boolean;
}

/** When a proposal was due and when its terminal observation reached the driver, epoch ms. */
export interface CallTime {
  readonly dueAt: number;
  readonly answeredAt: number;
}

/** A connected driver. */
export interface LoadDriver {
  /**
   * Keeps `window` proposals outstanding: fills the pipeline until a quarter of a window has been
   * answered, then measures completions for `durationMs`.
   */
  saturate(
    system: SystemName,
    tag: string,
    durationMs: number,
    window: number,
    marks?: WindowMarks,
  ): Promise<RunResult>;
  /** Sends `rate` proposals/s on schedule for `durationMs`, never waiting for answers. */
  openLoop(system: SystemName, tag: string, rate: number, durationMs: number): Promise<RunResult>;
  /** Each answered proposal's times, by proposalId (empty unless `keepCallTimes`). */
  callTimes(): ReadonlyMap<string, CallTime>;
  /** Gate answers that differed from the mix's recipe, by label. */
  mismatches(): ReadonlyMap<string, number>;
  close(): Promise<void>;
}

interface Pending {
  readonly dueAt: number;
  readonly out: Outbound;
}

interface Current {
  readonly histogram: Histogram;
  readonly unattended: Histogram;
  readonly outcomes: Map<string, number>;
  completions: number;
  windowStart: number;
  windowCompletions: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Connects the producers and the two consumers. */
export async function createLoadDriver(o: DriverOptions): Promise<LoadDriver> {
  const producer = o.bus.producer();
  await producer.connect();
  const pending = new Map<string, Pending>();
  const mismatched = new Map<string, number>();
  const callTimes = new Map<string, CallTime>();
  const epoch = (at: number) => performance.timeOrigin + at;
  let current: Current | undefined;
  let wake: (() => void) | undefined;

  const onObservation = (value: Record<string, unknown>, at: number) => {
    if (value['outcome'] === 'pending_confirmation') return;
    const id = value['proposalId'];
    const p = typeof id === 'string' ? pending.get(id) : undefined;
    if (p === undefined) return;
    pending.delete(id as string);
    if (p.out.expected !== undefined && !answers(p.out.expected, p.out.label, value)) {
      const word = (k: string) => JSON.stringify(value[k] ?? null);
      const key = `${p.out.label ?? '?'} → ${word('outcome')} ${word('stage')}/${word('code')}`;
      mismatched.set(key, (mismatched.get(key) ?? 0) + 1);
    }
    if (current === undefined) return;
    const latency = Math.max(0, at - p.dueAt);
    if (o.keepCallTimes === true)
      callTimes.set(id as string, { dueAt: epoch(p.dueAt), answeredAt: epoch(at) });
    current.histogram.record(latency);
    if (unattended(p.out)) current.unattended.record(latency);
    const outcome = outcomeOf(value);
    current.outcomes.set(outcome, (current.outcomes.get(outcome) ?? 0) + 1);
    current.completions += 1;
    if (at >= current.windowStart) current.windowCompletions += 1;
  };
  const observations = await consume(
    o.bus,
    `${o.groupPrefix}driver.observations`,
    o.observationTopics,
    (batch) => {
      const at = performance.now();
      for (const m of batch.messages) {
        const value = decodeValue(m.value);
        if (value !== undefined) onObservation(value, at);
      }
      wake?.();
    },
  );
  const approver = await startApprover({
    bus: o.bus,
    groupId: `${o.groupPrefix}driver.approver`,
    confirmationsTopic: o.confirmationsTopic,
    approvalsTopic: o.approvalsTopic,
    approverTokens: o.approverTokens,
  });

  const begin = (): Current => {
    current = {
      histogram: createHistogram(),
      unattended: createHistogram(),
      outcomes: new Map(),
      completions: 0,
      windowStart: Number.POSITIVE_INFINITY,
      windowCompletions: 0,
    };
    return current;
  };

  const send = async (
    system: SystemName,
    tag: string,
    from: number,
    to: number,
    dueAt: (n: number) => number,
  ) => {
    const now = new Date();
    const records: OutRecord[] = [];
    for (let n = from; n < to; n += 1) {
      const out = outbound(o.facts, system, tag, n, now);
      pending.set(out.id, { dueAt: dueAt(n), out });
      records.push(out.record);
    }
    await producer.send(records);
  };

  /** Waits for what is still outstanding, then forgets it (counted lost). */
  const drain = async (tag: string): Promise<number> => {
    const mine = () => [...pending.keys()].filter((id) => id.split('.')[1] === tag);
    const deadline = performance.now() + (o.drainMs ?? 60_000);
    while (mine().length > 0 && performance.now() < deadline) await sleep(50);
    const lost = mine();
    for (const id of lost) pending.delete(id);
    return lost.length;
  };

  const outstanding = () => pending.size;

  return {
    async saturate(system, tag, durationMs, window, marks = {}) {
      const run = begin();
      const start = performance.now();
      // Fill first: the window is measured only once answers flow (a pipeline of transactional
      // hops takes seconds to give its first answer), then for `durationMs`.
      let windowStart = Number.POSITIVE_INFINITY;
      let sent = 0;
      let lastReport = start;
      while (performance.now() < windowStart + durationMs) {
        const now = performance.now();
        if (
          windowStart === Number.POSITIVE_INFINITY &&
          (run.completions >= window / 4 || now - start > 60_000)
        ) {
          windowStart = now;
          run.windowStart = now;
          marks.atStart?.();
        }
        if (now - lastReport >= 2_000) {
          lastReport = now;
          const where =
            windowStart === Number.POSITIVE_INFINITY
              ? 'filling'
              : `measuring ${((now - windowStart) / 1000).toFixed(0)} s`;
          const rate =
            windowStart === Number.POSITIVE_INFINITY
              ? 0
              : (run.windowCompletions / (now - windowStart)) * 1000;
          o.progress(
            `  ${tag} ${system}: ${where}, sent ${sent}, done ${run.completions}, ${rate.toFixed(0)}/s`,
          );
        }
        const room = Math.min(250, window - outstanding());
        if (room > 0) {
          await send(system, tag, sent, sent + room, () => performance.now());
          sent += room;
        } else {
          await Promise.race([new Promise<void>((r) => (wake = r)), sleep(5)]);
        }
      }
      const windowDone = run.windowCompletions;
      const windowMs = performance.now() - windowStart;
      marks.atEnd?.(windowDone);
      const lost = await drain(tag);
      current = undefined;
      return {
        sent,
        completed: run.completions,
        lost,
        throughput: (windowDone / windowMs) * 1000,
        histogram: run.histogram,
        unattended: run.unattended,
        outcomes: run.outcomes,
      };
    },

    async openLoop(system, tag, rate, durationMs) {
      const run = begin();
      const start = performance.now();
      run.windowStart = start;
      const total = Math.max(1, Math.round((rate * durationMs) / 1000));
      const dueAt = (n: number) => start + (n * 1000) / rate;
      let sent = 0;
      let lastReport = start;
      while (sent < total) {
        const now = performance.now();
        const due = Math.min(total, Math.floor(((now - start) * rate) / 1000) + 1);
        if (now - lastReport >= 2_000) {
          lastReport = now;
          o.progress(
            `  ${tag} ${system}: ${((now - start) / 1000).toFixed(0)} s at ${rate.toFixed(0)}/s, sent ${sent}, done ${run.completions}`,
          );
        }
        if (due > sent) {
          // Stamped with when each was due, not when it went out: a late send is the system's delay.
          await send(system, tag, sent, due, dueAt);
          sent = due;
        } else {
          await sleep(Math.max(1, dueAt(sent) - now));
        }
      }
      const sendMs = performance.now() - start;
      const lost = await drain(tag);
      current = undefined;
      return {
        sent,
        completed: run.completions,
        lost,
        throughput: (run.completions / Math.max(sendMs, performance.now() - start)) * 1000,
        histogram: run.histogram,
        unattended: run.unattended,
        outcomes: run.outcomes,
      };
    },

    callTimes: () => callTimes,

    mismatches: () => mismatched,

    async close() {
      await Promise.allSettled([observations.disconnect(), approver.close()]);
      await producer.disconnect().catch(() => undefined);
    },
  };
}

export type { BusProducer };
