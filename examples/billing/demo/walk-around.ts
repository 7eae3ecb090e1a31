/**
 * After the scripted run, the demo tries to walk around the gate, and reports one line per
 * attempt: what was tried, as whom, and what stopped it. Every stop is observed, never assumed:
 * the broker's error (components outside their ACLs), the tool worker's metrics, ledger and the
 * results topic (forged commands), the audit topic read as `toolgate-analytics` (a forged result,
 * a replayed envelope), the agent client's count of dropped observations, and Redis's answer (a
 * worker writing outside its keys). An attempt whose stop was not seen is reported as not stopped.
 */
import {
  analyticsGroupPrefix,
  gateTopics,
  storeKeys,
  type Bus,
  type BusProducer,
} from '@toolgate/platform';
import { STACK_ADMIN } from '../../../infra/stack-principals.js';
import { gateKeys } from '../../../infra/stack-secrets.js';
import { brokerAttempts } from './broker-attempts.js';
import type { DemoChild } from './child-processes.js';
import type { DemoClients } from './demo-clients.js';
import { busAs } from './demo-connections.js';
import type { DemoSettings } from './demo-settings.js';
import { forgedCommandAttempts } from './forged-commands.js';
import { pendingCallAttempts } from './pending-call.js';
import { redisUserOf, tryWrite } from './redis-access.js';
import { staleEnvelopeAttempt } from './stale-envelope.js';
import { watchTopic, type TopicWatch } from './topic-watch.js';
import {
  attempt,
  notStopped,
  stoppedBy,
  type Seen,
  type WalkContext,
} from './walk-around-context.js';
import type { AttemptLine } from './walk-around-table.js';

/** What the walk-around needs of the running demo. */
export interface WalkAroundDeps {
  readonly settings: DemoSettings;
  readonly clients: DemoClients;
  /** The tool worker's process. */
  readonly worker: DemoChild;
  /** The tool worker's Redis URL, its password included. */
  readonly workerRedisUrl: string;
}

/** Makes every attempt, in the order of the section; resolves with their lines. */
export async function walkAround(deps: WalkAroundDeps): Promise<AttemptLine[]> {
  const admin = busAs(deps.settings, STACK_ADMIN, 'walk-around-admin');
  const producer = admin.producer();
  const watches: TopicWatch[] = [];
  try {
    await producer.connect();
    const ctx = await contextOf(deps, admin, producer, watches);
    const key = storeKeys(deps.settings.config.redisPrefix).confirmation('acme', ctx.tag);
    return [
      ...(await brokerAttempts(ctx)),
      ...(await forgedCommandAttempts(ctx)),
      ...(await pendingCallAttempts(ctx)),
      await attempt(
        '7',
        'a cleared envelope re-dated 2 h back, tagged again',
        'admin + integrity key',
        () => staleEnvelopeAttempt(ctx),
      ),
      await attempt('8', `write ${key}`, `${redisUserOf(deps.workerRedisUrl)} (Redis)`, () =>
        refusedRedisWrite(deps.workerRedisUrl, key),
      ),
    ];
  } finally {
    await Promise.allSettled(watches.map((w) => w.stop()));
    await producer.disconnect().catch(() => undefined);
    await admin.close();
  }
}

/**
 * The shared context, its watches started (and pushed to `watches`, for the caller to stop)
 * before the first attempt, so that nothing an attempt causes can be missed.
 */
async function contextOf(
  deps: WalkAroundDeps,
  admin: Bus,
  adminProducer: BusProducer,
  watches: TopicWatch[],
): Promise<WalkContext> {
  const { settings, clients } = deps;
  const { topicPrefix, groupPrefix } = settings.config;
  const topics = gateTopics(topicPrefix);
  const watch = async (bus: Bus, topic: string, prefix: string) => {
    const started = await watchTopic(bus, clients.codec, { topic, groupPrefix: prefix });
    watches.push(started);
    return started;
  };
  return {
    ...deps,
    topics,
    keys: gateKeys(settings.stack),
    admin,
    adminProducer,
    audit: await watch(clients.analytics, topics.audit, `${analyticsGroupPrefix(groupPrefix)}.`),
    commands: await watch(admin, topics.command('calculate'), groupPrefix),
    cleared: await watch(admin, topics.cleared, groupPrefix),
    tag: `${settings.runTag}-wa`,
    runId: `demo-${settings.runTag}-walk-around`,
  };
}

/** A write of a pending-confirmation key as the worker's Redis user. */
async function refusedRedisWrite(url: string, key: string): Promise<Seen> {
  const tried = await tryWrite(url, key);
  if (tried.written) return notStopped('Redis took the write');
  return tried.error.startsWith('NOPERM')
    ? stoppedBy('Redis: NOPERM')
    : notStopped(`Redis answered ${tried.error}`);
}
