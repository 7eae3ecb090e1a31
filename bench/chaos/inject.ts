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
import { probeRedis, probeRedisCluster, REDIS_ADMIN, redisUrlAs } from '../../infra/redis.js';
import { redisPids, registryProcess } from '../../infra/stack-process.js';
import type { StackConfig } from '../../infra/stack-config.js';
import type { Fleet } from './fleet.js';
import type { PlannedFault } from './fault-schedule.js';

/** When a fault struck, what exactly it hit, and when its target was back (ms since the epoch). */
export interface Struck {
  readonly target: string;
  readonly injectedAt: number;
  readonly recoveredAt: number;
  /** A paused instance woke to find its transaction aborted, stopped, and was started again. */
  readonly fencedOnWaking?: true;
}

/** Injects planned faults. */
export interface Injector {
  inject(fault: PlannedFault): Promise<Struck>;
  /** Continues every Redis process this injector stopped and has not continued (on an abort). */
  release(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How long a paused instance is watched after it is continued: one paused past its transaction
 * timeout finds that transaction aborted on its next send, and stops (it is started again).
 */
const WAKE_WITHIN_MS = 20_000;

/** How long Redis may take to answer again after a fault, ms. */
const REDIS_BACK_WITHIN_MS = 60_000;

/** An injector for the run's stack `config` and its gate `fleet`. */
export function createInjector(config: StackConfig, fleet: Fleet): Injector {
  let cluster: RedisCluster | undefined;
  const clusterOf = () => (cluster ??= attachRedisCluster(stackRedisClusterOptions(config)));
  const stoppedRedis = new Set<number>();
  /**
   * Resolves once Redis answers as the stack's readiness probe asks it (a cluster: every slot
   * served). Not `whenHealthy`, which asks each node with a one-second timeout: under a run's load
   * on two cores, those asks went unanswered for a minute after a failover had long succeeded.
   */
  const redisAnswers = async (after: string) => {
    const url = redisUrlAs(config, REDIS_ADMIN);
    const probe = config.redisCluster ? probeRedisCluster : probeRedis;
    const deadline = Date.now() + REDIS_BACK_WITHIN_MS;
    for (;;) {
      const answer = await probe(url);
      if (answer.ready) return;
      if (Date.now() > deadline)
        throw new Error(
          `redis did not answer ${REDIS_BACK_WITHIN_MS / 1000} s after ${after}: ${answer.why}`,
        );
      await sleep(250);
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
      case 'stop_worker': {
        const woke = await fleet.pause(fault.target, fault.holdMs, WAKE_WITHIN_MS);
        return {
          target: fault.target,
          injectedAt: at,
          recoveredAt: woke.at,
          ...(woke.how === 'restarted' ? { fencedOnWaking: true } : {}),
        };
      }
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
        await redisAnswers(`${target} was restarted`);
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
        await redisAnswers('its outage');
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
