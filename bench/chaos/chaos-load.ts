/**
 * The chaos run's agents and approver: sends the benchmark's seeded mix to the gate at a steady
 * open-loop rate, whatever the gate is going through, and records every proposal whose send was
 * acknowledged; the scripted approver answers the confirmation requests; a reader notes each
 * terminal observation as it arrives, so the run knows when they have stopped coming.
 */
import type { Bus, BusConsumer, BusProducer } from '@toolgate/platform';
import type { SentProposal } from './chaos-facts.js';
import { startApprover, type Approver, type Decide } from '../pipeline/approver.js';
import { consume } from '../pipeline/consume.js';
import { decodeValue, outbound, type TrafficFacts } from '../pipeline/traffic.js';

/** Options of {@link startChaosLoad}. */
export interface ChaosLoadOptions {
  readonly bus: Bus;
  readonly facts: TrafficFacts;
  readonly groupPrefix: string;
  readonly observationTopics: readonly string[];
  readonly confirmationsTopic: string;
  readonly approvalsTopic: string;
  readonly approverTokens: Readonly<Record<string, string>>;
  readonly decide: Decide;
  readonly progress: (line: string) => void;
}

/** The load as it runs. */
export interface ChaosLoad {
  /** Sends `rate` proposals/s until `stop()` says true. */
  drive(rate: number, stop: () => boolean): Promise<void>;
  /** Every proposal sent and acknowledged so far. */
  readonly sent: readonly SentProposal[];
  /** Sends that failed (their proposals are not in `sent`). */
  failedSends(): number;
  /** Sent proposals with a terminal observation so far. */
  answered(): number;
  /** When the last terminal observation arrived, ms since the epoch (0: none yet). */
  lastTerminalAt(): number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The proposals' tag: their ids are `g.chaos.<n>`. */
const TAG = 'chaos';

/** Connects the producer, the approver and the observations reader. */
export async function startChaosLoad(o: ChaosLoadOptions): Promise<ChaosLoad> {
  const producer: BusProducer = o.bus.producer();
  await producer.connect();
  const sent: SentProposal[] = [];
  // Every proposal with a terminal observation, sent by this load or not (an observation may
  // arrive before its send's acknowledgement).
  const answered = new Set<string>();
  let lastTerminalAt = 0;
  let failures = 0;
  let lastFailure: string | undefined;
  const approver: Approver = await startApprover({
    bus: o.bus,
    groupId: `${o.groupPrefix}approver`,
    confirmationsTopic: o.confirmationsTopic,
    approvalsTopic: o.approvalsTopic,
    approverTokens: o.approverTokens,
    decide: o.decide,
  });
  const observations: BusConsumer = await consume(
    o.bus,
    `${o.groupPrefix}observations`,
    o.observationTopics,
    (batch) => {
      for (const m of batch.messages) {
        const value = decodeValue(m.value);
        if (value === undefined || value['outcome'] === 'pending_confirmation') continue;
        lastTerminalAt = Date.now();
        const id = value['proposalId'];
        if (typeof id === 'string') answered.add(id);
      }
    },
  );

  return {
    async drive(rate, stop) {
      const start = Date.now();
      let n = 0;
      let lastReport = start;
      while (!stop()) {
        const now = Date.now();
        const due = Math.floor(((now - start) * rate) / 1000) + 1;
        if (now - lastReport >= 10_000) {
          lastReport = now;
          const why = lastFailure === undefined ? '' : ` (the last: ${lastFailure})`;
          o.progress(
            `  load: ${sent.length} sent, ${answered.size} answered, ${failures} sends failed${why}`,
          );
          lastFailure = undefined;
        }
        if (due <= n) {
          await sleep(Math.max(1, start + (n * 1000) / rate - now));
          continue;
        }
        const batch = Array.from({ length: due - n }, (_, i) =>
          outbound(o.facts, 'gate', TAG, n + i, new Date(now)),
        );
        n = due;
        try {
          await producer.send(batch.map((b) => b.record));
        } catch (error) {
          // Not tried again: the proposals may or may not have reached Kafka, and are not counted.
          failures += batch.length;
          lastFailure = error instanceof Error ? error.message : String(error);
          continue;
        }
        const sentAt = Date.now();
        for (const b of batch) {
          if (b.expected === undefined || b.label === undefined) continue;
          sent.push({ proposalId: b.id, label: b.label, expected: b.expected, sentAt });
        }
      }
    },
    sent,
    failedSends: () => failures,
    answered: () => sent.filter((p) => answered.has(p.proposalId)).length,
    lastTerminalAt: () => lastTerminalAt,
    async close() {
      await Promise.allSettled([observations.disconnect(), approver.close()]);
      await producer.disconnect().catch(() => undefined);
    },
  };
}
