/**
 * A pass-through stage loop in its own process, for the crash-safety test. Copies every message of
 * CHILD_INPUT to CHILD_OUTPUT (key and value) as group CHILD_GROUP, instance CHILD_INSTANCE, at
 * most CHILD_MAX_BATCH messages per transaction. Prints `ready` once it has joined its group and
 * stops cleanly on SIGTERM.
 *
 * TOOLGATE_TEST_KILL_AT_COMMIT=n (honoured here only, never by production code) makes the process
 * SIGKILL itself inside its n-th transaction, after the outputs and offsets were sent and before
 * the commit: the broker holds an open transaction of a process that no longer exists.
 */
import {
  createBus,
  createCodec,
  kafkaIdentityFromEnv,
  kafkaSecurityOf,
  SILENT_LOGGER,
  startStageLoop,
  type Bus,
  type BusProducer,
} from '@toolgate/platform';

const env = (name: string): string => {
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

const input = env('CHILD_INPUT');
const output = env('CHILD_OUTPUT');
const bus = createBus({
  // The parent's identity, from the usual TOOLGATE_KAFKA_* variables.
  security: kafkaSecurityOf(kafkaIdentityFromEnv(process.env)),
  brokers: env('TOOLGATE_KAFKA_BROKERS').split(','),
  clientId: env('CHILD_INSTANCE'),
  logger: SILENT_LOGGER,
});
const crashingBus: Bus = { ...bus, producer: (options) => killingAtCommit(bus.producer(options)) };
const codec = createCodec({
  registryUrl: env('TOOLGATE_SCHEMA_REGISTRY_URL'),
  logger: SILENT_LOGGER,
});
await codec.register(`${output}-value`, JSON.parse(env('CHILD_SCHEMA')) as Record<string, unknown>);

const loop = await startStageLoop({
  stage: 'child',
  groupId: env('CHILD_GROUP'),
  instanceId: env('CHILD_INSTANCE'),
  topics: [{ name: input, plainJsonAllowed: true }],
  bus: crashingBus,
  codec,
  logger: SILENT_LOGGER,
  maxBatchMessages: Number(env('CHILD_MAX_BATCH')),
  // The killed process stays a group member until its session times out; keep that short.
  sessionTimeoutMs: 6_000,
  handle: (msg) => Promise.resolve([{ topic: output, key: msg.key, value: msg.value }]),
});

const announce = setInterval(() => {
  if (!loop.ready()) return;
  clearInterval(announce);
  process.stdout.write('ready\n');
}, 20);

process.once('SIGTERM', () => {
  clearInterval(announce);
  void loop
    .stop()
    .then(() => bus.close())
    .then(() => process.exit(0));
});
