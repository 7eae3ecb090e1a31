/**
 * What the demo itself connects to once the system is up, each as the principal whose job it
 * does: the tenants' agents, the audit topic read back as the read-only `toolgate-analytics`, a
 * registry client, and Redis as the stack's admin to seed and inspect the run's objects (the
 * operator's part of a demo). Opened once, shared by the scripted run and the walk-around.
 */
import {
  ANALYTICS_PRINCIPAL,
  connectRedis,
  createLedger,
  createRedisObjectStore,
  OBJECT_NAMESPACE,
  type Bus,
  type Codec,
  type Ledger,
  type RedisObjectStore,
} from '@toolgate/platform';
import { mintSession } from '@toolgate/shared';
import { EXAMPLE_SESSION_ISSUER } from '../toolgate.config.js';
import { USERS } from '../data.js';
import { connectAgents, type DemoAgents } from './demo-agents.js';
import { adminRedisUrl, busAs, demoCodec } from './demo-connections.js';
import type { DemoSettings } from './demo-settings.js';
import type { DemoSessions } from './script.js';

/** The demo's connections. */
export interface DemoClients {
  readonly sessions: DemoSessions;
  readonly agents: DemoAgents;
  /** Kafka as `toolgate-analytics`: the audit topic, read only. */
  readonly analytics: Bus;
  readonly codec: Codec;
  /** The tool worker's ledger, read as the stack's Redis admin under the run's Redis prefix. */
  readonly ledger: Pick<Ledger, 'ledgerGet'>;
  /** The objects tools change, on the same connection. */
  readonly objects: RedisObjectStore;
  /** Closes everything; a failed close does not keep the rest open. */
  close(): Promise<void>;
}

/** Mints the sessions and opens the connections. */
export async function openDemoClients(settings: DemoSettings): Promise<DemoClients> {
  const sessions = await mintSessions(settings.sessionSecret);
  const { alice, carol } = sessions;
  const agents = await connectAgents(settings, { acme: alice, globex: carol }, alice);
  const analytics = busAs(settings, ANALYTICS_PRINCIPAL, 'analytics');
  const redis = connectRedis({
    url: adminRedisUrl(settings),
    prefix: settings.config.redisPrefix,
    connectionName: 'toolgate-demo',
  });
  return {
    sessions,
    agents,
    analytics,
    codec: demoCodec(settings),
    ledger: createLedger(redis),
    objects: createRedisObjectStore(redis, OBJECT_NAMESPACE),
    close: async () => {
      await Promise.allSettled([agents.close(), analytics.close(), redis.close()]);
    },
  };
}

/** How long the demo's sessions last: 8 h. */
const SESSION_TTL_SECONDS = 8 * 3600;

/** A session of one of the example's users, valid for 8 h from `at` unless `ttlSeconds` says. */
export function mintDemoSession(
  secret: string,
  user: (typeof USERS)[keyof typeof USERS],
  at = new Date(),
  ttlSeconds = SESSION_TTL_SECONDS,
): Promise<string> {
  return mintSession(user, secret, { now: at, ttlSeconds, issuer: EXAMPLE_SESSION_ISSUER });
}

/** Sessions of the example's users (8 h), alice's expired an hour ago, and one the gate never signed. */
async function mintSessions(secret: string): Promise<DemoSessions> {
  const now = new Date();
  const mint = (user: (typeof USERS)[keyof typeof USERS]) => mintDemoSession(secret, user, now);
  return {
    alice: await mint(USERS.alice),
    bob: await mint(USERS.bob),
    carol: await mint(USERS.carol),
    expired: await mintDemoSession(secret, USERS.alice, new Date(now.getTime() - 3_600_000), 60),
    forged: await mintDemoSession('not-the-gate-secret-but-long-enough-000000', USERS.alice, now),
  };
}
