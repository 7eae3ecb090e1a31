/**
 * What every walk-around attempt works with, and how one attempt becomes a line of the section:
 * an attempt reports what it saw; one that throws or outlasts its bound is reported as not
 * stopped, with why nothing was seen, and the other attempts still run.
 */
import type { Bus, BusProducer, GateTopics } from '@toolgate/platform';
import type { GateKeys } from '../../../infra/stack-secrets.js';
import type { DemoChild } from './child-processes.js';
import type { DemoClients } from './demo-clients.js';
import type { DemoSettings } from './demo-settings.js';
import type { TopicWatch } from './topic-watch.js';
import { within } from './wait-until.js';
import type { AttemptLine } from './walk-around-table.js';

/** What the attempts share. */
export interface WalkContext {
  readonly settings: DemoSettings;
  readonly clients: DemoClients;
  /** The tool worker's process (held still while a command must stay pending). */
  readonly worker: DemoChild;
  /** The tool worker's Redis URL, its password included. */
  readonly workerRedisUrl: string;
  readonly topics: GateTopics;
  /** The stack's gate keys: what an intruder holding them could sign with. */
  readonly keys: GateKeys;
  /** Kafka as the stack's admin, standing in for a broker that lets anything through. */
  readonly admin: Bus;
  readonly adminProducer: BusProducer;
  /** The audit topic, followed as `toolgate-analytics` from before the first attempt. */
  readonly audit: TopicWatch;
  /** The calculate tool's command topic, followed as admin. */
  readonly commands: TopicWatch;
  /** The cleared topic, followed as admin. */
  readonly cleared: TopicWatch;
  /** Starts every id the walk-around makes, e.g. `<runTag>-wa`. */
  readonly tag: string;
  /** The agent run of the walk-around's calls. */
  readonly runId: string;
}

/** What an attempt saw. */
export interface Seen {
  /** True when what stopped it was observed. */
  readonly stopped: boolean;
  readonly detail: string;
}

/** An attempt stopped by what `detail` says. */
export function stoppedBy(detail: string): Seen {
  return { stopped: true, detail };
}

/** An attempt that got through, or whose stop was not observed: `detail` says what was seen. */
export function notStopped(detail: string): Seen {
  return { stopped: false, detail };
}

/** Default bound on one attempt, in ms. */
export const ATTEMPT_TIMEOUT_MS = 60_000;

/** Runs `probe` as attempt `no` and makes its line. */
export async function attempt(
  no: string,
  what: string,
  as: string,
  probe: () => Promise<Seen>,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
): Promise<AttemptLine> {
  try {
    return { no, attempt: what, as, ...(await within(probe(), what, timeoutMs)) };
  } catch (error) {
    return { no, attempt: what, as, ...notStopped(`nothing observed: ${messageOf(error)}`) };
  }
}

/** The message of an error, its first line. */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n', 1)[0] ?? '';
}
