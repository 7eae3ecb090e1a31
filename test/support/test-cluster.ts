/**
 * A Redis Cluster of its own for a test file: six nodes on ports 17001–17006 (cluster bus
 * 27001–27006) in a temporary directory, with the stack's ACL users and passwords made for it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REDIS_ADMIN, REDIS_GATE_USER, REDIS_WORKER_USER, aclText } from '../../infra/redis.js';
import { startRedisCluster, type RedisCluster } from '../../infra/redis-cluster.js';

/** A started test cluster and the URLs of its users. */
export interface TestCluster {
  readonly cluster: RedisCluster;
  /** TOOLGATE_REDIS_URL of the gate's user. */
  readonly gateUrl: string;
  /** TOOLGATE_REDIS_URL of the example tool worker's user. */
  readonly workerUrl: string;
  /** The admin user's password (the user is `REDIS_ADMIN`). */
  readonly adminPassword: string;
  /** Stops the cluster and removes its directory. */
  stop(): Promise<void>;
}

/** Starts the cluster; rejects (never skips) when it cannot. */
export async function startTestCluster(): Promise<TestCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-redis-cluster-'));
  const passwords = new Map(
    [REDIS_ADMIN, REDIS_GATE_USER, REDIS_WORKER_USER].map((u) => [
      u,
      randomBytes(12).toString('hex'),
    ]),
  );
  const passwordOf = (user: string) => passwords.get(user) ?? '';
  const cluster = await startRedisCluster({
    dir,
    firstPort: 17001,
    firstBusPort: 27001,
    acl: aclText(passwordOf),
    adminPassword: passwordOf(REDIS_ADMIN),
  });
  const urlOf = (user: string) => cluster.urlAs(user, passwordOf(user));
  return {
    cluster,
    gateUrl: urlOf(REDIS_GATE_USER),
    workerUrl: urlOf(REDIS_WORKER_USER),
    adminPassword: passwordOf(REDIS_ADMIN),
    async stop() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
