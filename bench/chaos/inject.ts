/**
 * Carries out one planned fault on the run's stack and gate, and says when it struck and when its
 * target was back. Every signal goes to a process this run started: its own children, or the
 * processes its stack directory's pid files record.
 */
import { kafkaNode } from '../../infra/kafka-node.js';
import {
  attachRedisCluster,
  stackRedisClusterOptions,
  type RedisCluster,
} from '../../infra/redis-cluster.js';
import { probeRedis, REDIS_ADMIN, redisUrlAs } from '../../infra/redis.js';
import { redisPids, registryProcess } from '../../infra/stack-process.js';
import type { StackConfig } from '../../infra/stack-config.js';
import type { Fleet } from './fleet.js';
import type { PlannedFault } from './fault-schedule.js';

/** When a fault struck, what exactly it hit, and when its target was back (ms since the epoch). */
export interface Struck {
  readonly target: string;
  readonly injectedAt: number;
  readonly recoveredAt: number;
}

/** Injects planned faults. */
export interface Injector {
  inject(fault: PlannedFault): Promise<Struck>;
  /** Continues every Redis process this injector stopped and has not continued (on an abort). */
  release(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long a restarted Redis Cluster may take to be healthy again, ms. */
const CLUSTER_HEALTHY_WITHIN_MS = 60_000;

/** An injector for the run's stack `config` and its gate `fleet`. */
export function createInjector(config: StackConfig, fleet: Fleet): Injector {
  let cluster: RedisCluster | undefined;
  const clusterOf = () => (cluster ??= attachRedisCluster(stackRedisClusterOptions(config)));
  const stoppedRedis = new Set<number>();
  const redisAnswers = async () => {
    if (config.redisCluster) return clusterOf().whenHealthy(CLUSTER_HEALTHY_WITHIN_MS);
    const deadline = Date.now() + 30_000;
    while (!(await probeRedis(redisUrlAs(config, REDIS_ADMIN))).ready) {
      if (Date.now() > deadline) throw new Error('redis did not answer 30 s after its outage');
      await sleep(100);
    }
  };

  /** Hits `fault`; resolves with what it hit and when, once the target is back. */
  const strike = async (fault: PlannedFault): Promise<Struck> => {
    const at = Date.now();
    const done = (target: string) => ({ target, injectedAt: at, recoveredAt: Date.now() });
    switch (fault.kind) {
      case 'kill_stage':
      case 'kill_worker':
        await fleet.kill(fault.target);
        return done(fault.target);
      case 'stop_stage':
      case 'stop_worker':
        fleet.signal(fault.target, 'stop');
        await sleep(fault.holdMs);
        fleet.signal(fault.target, 'continue');
        return done(fault.target);
      case 'kill_kafka_node': {
        const node = kafkaNode(config, Number(fault.target.replace('kafka-', '')));
        await node.kill();
        await sleep(fault.holdMs);
        await node.start();
        return done(fault.target);
      }
      case 'kill_redis_primary': {
        const rank = Number(fault.target.split('#')[1] ?? '1') - 1;
        const node = await clusterOf().killPrimary(rank);
        const target = `redis:${config.ports.redis + node}`;
        await sleep(fault.holdMs);
        await clusterOf().restartNode(node);
        await clusterOf().whenHealthy(CLUSTER_HEALTHY_WITHIN_MS);
        return done(target);
      }
      case 'kill_registry': {
        const registry = registryProcess(config);
        await registry.kill();
        await sleep(fault.holdMs);
        await registry.start();
        return done('registry');
      }
      case 'redis_outage': {
        const pids = redisPids(config);
        for (const pid of pids) {
          process.kill(pid, 'SIGSTOP');
          stoppedRedis.add(pid);
        }
        await sleep(fault.holdMs);
        for (const pid of pids) {
          process.kill(pid, 'SIGCONT');
          stoppedRedis.delete(pid);
        }
        await redisAnswers();
        return done('redis');
      }
    }
  };

  return {
    inject: strike,
    release() {
      for (const pid of stoppedRedis) process.kill(pid, 'SIGCONT');
      stoppedRedis.clear();
    },
  };
}
