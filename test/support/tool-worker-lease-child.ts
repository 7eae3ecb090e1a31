/**
 * A tool worker in its own process, for the lease tests: two of them share a group, and one may
 * be paused (SIGSTOP) mid-handler. It serves CHILD_TOOL with a handler that counts its calls in
 * Redis (INCR CHILD_CALLS_KEY, and the instance that ran last under `<CHILD_CALLS_KEY>:by`); on
 * its first attempt it takes `args.slowMs` ms, and if its signal
 * aborts meanwhile it records why (RPUSH CHILD_ABORTS_KEY `<commandId>:<reason name>`) and stops.
 * It answers `{ran: <commandId>, attempt}`. Its configuration is the usual TOOLGATE_* environment,
 * with CHILD_LEASE_MS (the worker's lease) and CHILD_REBALANCE_TIMEOUT_MS (how long the group waits
 * for a member to rejoin). Prints `ready` once it has joined its group.
 */
import {
  createBus,
  connectRedis,
  createCodec,
  createLedger,
  kafkaSecurityOf,
  SILENT_LOGGER,
  type Bus,
} from '@toolgate/platform';
import { loadWorkerConfig, startToolWorker, toolOk, type ToolHandler } from '@toolgate/tool-worker';
import { redisAt } from './redis-at.js';
import { exitOnCrash, runAsChild } from './worker-child.js';

const must = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};

const config = loadWorkerConfig(process.env);
const bus = createBus({
  security: kafkaSecurityOf(config),
  brokers: [...config.kafkaBrokers],
  clientId: config.instanceId,
  logger: SILENT_LOGGER,
});
const rebalanceTimeoutMs = Number(must('CHILD_REBALANCE_TIMEOUT_MS'));
const shortRebalance: Bus = {
  ...bus,
  consumer: (options) => bus.consumer({ ...options, rebalanceTimeoutMs }),
};
const codec = createCodec({
  registryUrl: config.schemaRegistryUrl,
  logger: SILENT_LOGGER,
  compatibility: 'NONE',
});
const redis = connectRedis({ url: config.redisUrl, prefix: config.redisPrefix });
// The worker's own Redis user may touch only its ledger: the counters are the test's.
const counter = redisAt(must('CHILD_COUNTER_REDIS_URL'));
const callsKey = must('CHILD_CALLS_KEY');
const abortsKey = must('CHILD_ABORTS_KEY');

const slowHandler: ToolHandler = async (command, { signal, attempt }) => {
  await counter.multi().incr(callsKey).set(`${callsKey}:by`, config.instanceId).exec();
  const { slowMs = 0 } = command.args as { slowMs?: number };
  if (attempt === 1 && slowMs > 0) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, slowMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        const reason = signal.reason as Error;
        void counter
          .rpush(abortsKey, `${command.commandId}:${reason.name}`)
          .finally(() => reject(reason));
      });
    });
  }
  return toolOk({ ran: command.commandId, attempt });
};

const worker = await startToolWorker({
  config,
  tools: { [must('CHILD_TOOL')]: slowHandler },
  connections: { bus: shortRebalance, codec, ledger: createLedger(redis) },
  logger: SILENT_LOGGER,
  sessionTimeoutMs: 6_000,
  leaseMs: Number(must('CHILD_LEASE_MS')),
  retry: { initialMs: 200, maxMs: 1_000 },
  onCrash: exitOnCrash,
});

runAsChild(worker, () => Promise.all([redis.close(), bus.close(), counter.quit()]));
