/**
 * A tool worker in its own process, for the restart test. It serves CHILD_TOOL with a handler
 * that counts its calls in Redis (INCR CHILD_CALLS_KEY) and answers `{ran: <commandId>}`; its
 * configuration is the usual TOOLGATE_* environment. Prints `ready` once it has joined its group.
 *
 * TOOLGATE_TEST_KILL_AT_COMMIT=n (honoured here only, never by production code) makes the process
 * SIGKILL itself inside its n-th transaction, after the result and the command's offset were sent
 * and before the commit: the handler ran and the ledger holds its result, but Kafka never saw the
 * command consumed.
 */
import {
  createBus,
  connectRedis,
  createCodec,
  createLedger,
  kafkaSecurityOf,
  SILENT_LOGGER,
  type Bus,
  type BusProducer,
} from '@toolgate/platform';
import { loadWorkerConfig, startToolWorker, toolOk } from '@toolgate/tool-worker';
import { redisAt } from './redis-at.js';
import { exitOnCrash, runAsChild } from './worker-child.js';

const must = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};

const killAt = Number(process.env['TOOLGATE_TEST_KILL_AT_COMMIT'] ?? '0');
let commits = 0;

/** The same producer, except that its `killAt`-th commit kills the process instead. */
function killingAtCommit(producer: BusProducer): BusProducer {
  return {
    ...producer,
    transaction: async () => {
      const tx = await producer.transaction();
      return {
        ...tx,
        commit: () => {
          commits += 1;
          if (commits === killAt) process.kill(process.pid, 'SIGKILL');
          return tx.commit();
        },
      };
    },
  };
}

const config = loadWorkerConfig(process.env);
const bus = createBus({
  security: kafkaSecurityOf(config),
  brokers: [...config.kafkaBrokers],
  clientId: config.instanceId,
  logger: SILENT_LOGGER,
});
const crashingBus: Bus = { ...bus, producer: (options) => killingAtCommit(bus.producer(options)) };
// The gate registers its subjects with compatibility NONE, and the registry client refuses to
// register under a subject configured otherwise than it asks for.
const codec = createCodec({
  registryUrl: config.schemaRegistryUrl,
  logger: SILENT_LOGGER,
  compatibility: 'NONE',
});
const redis = connectRedis({ url: config.redisUrl, prefix: config.redisPrefix });
const ledger = createLedger(redis);
// The worker's own Redis user may touch only its ledger and objects: the test's counter is not
// the worker's, and is kept as the user the test gives (CHILD_COUNTER_REDIS_URL).
const counter = redisAt(must('CHILD_COUNTER_REDIS_URL'));
const callsKey = must('CHILD_CALLS_KEY');

const worker = await startToolWorker({
  config,
  tools: {
    [must('CHILD_TOOL')]: async (command) => {
      await counter.incr(callsKey);
      return toolOk({ ran: command.commandId });
    },
  },
  connections: { bus: crashingBus, codec, ledger },
  logger: SILENT_LOGGER,
  // The killed process stays a group member until its session times out; keep that short.
  sessionTimeoutMs: 6_000,
  onCrash: exitOnCrash,
});

runAsChild(worker, () => Promise.all([redis.close(), bus.close(), counter.quit()]));
