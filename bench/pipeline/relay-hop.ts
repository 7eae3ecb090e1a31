/**
 * One hop of the relay, the gate's baseline: the platform's stage loop (same kafkajs settings,
 * same read-committed consumer, same one-transaction-per-batch commit, same registry wire format)
 * with a handler that does no work. hop1–hop3 forward the value unchanged to the next pipeline
 * topic; hop4 forwards the Command the driver put in the proposal to its tool's command topic
 * (`commands.<tool>`, the gate's tools); `obs` turns each ToolResult into a result Observation.
 * Reads TOOLGATE_* like a stage, BENCH_CHILD.
 */
import {
  createBus,
  createCodec,
  createLogger,
  EXAMPLE_TOOLS,
  fetchOptions,
  gateTopics,
  loadConfig,
  startStageLoop,
  type GateTopics,
  type Incoming,
  type Outgoing,
} from '@toolgate/platform';
import { MESSAGE_SCHEMAS, observationForResult, type ToolResult } from '@toolgate/shared';
import {
  announceReady,
  exitOnCrash,
  readChildConfig,
  stopOnSignal,
  type RelayRole,
} from './child-config.js';

/** Permissive schema of the relay's internal topics: any JSON object (the registry needs a draft). */
const ANY_OBJECT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'RelayEnvelope',
  type: 'object',
} as const;

interface Route {
  readonly from: string;
  /** The topics it writes, each with `schema` registered. */
  readonly to: readonly string[];
  readonly schema: Readonly<Record<string, unknown>>;
  readonly plainJsonAllowed: boolean;
  forward(msg: Incoming): Outgoing;
}

const asRecord = (v: unknown) => (v ?? {}) as Record<string, unknown>;

/** Forwards the value and headers unchanged to `to`. */
function passTo(to: string): (msg: Incoming) => Outgoing {
  return (msg) => ({ topic: to, key: msg.key, value: msg.value, headers: msg.headers });
}

function routeOf(role: RelayRole, t: GateTopics): Route {
  switch (role) {
    case 'hop1':
      return {
        from: t.proposals,
        to: [t.validated],
        schema: ANY_OBJECT,
        plainJsonAllowed: true,
        forward: passTo(t.validated),
      };
    case 'hop2':
      return {
        from: t.validated,
        to: [t.authorized],
        schema: ANY_OBJECT,
        plainJsonAllowed: false,
        forward: passTo(t.authorized),
      };
    case 'hop3':
      return {
        from: t.authorized,
        to: [t.cleared],
        schema: ANY_OBJECT,
        plainJsonAllowed: false,
        forward: passTo(t.cleared),
      };
    case 'hop4':
      return {
        from: t.cleared,
        to: EXAMPLE_TOOLS.map((tool) => t.command(tool)),
        schema: MESSAGE_SCHEMAS.commands,
        plainJsonAllowed: false,
        forward: (msg) => {
          const command = asRecord(asRecord(msg.value)['command']);
          const topic = t.command(String(command['tool']));
          return { topic, key: String(command['idempotencyKey']), value: command };
        },
      };
    case 'obs':
      return {
        from: t.results,
        to: [t.observations],
        schema: MESSAGE_SCHEMAS.observations,
        plainJsonAllowed: true,
        forward: (msg) => {
          const r = msg.value as ToolResult;
          const ids = { proposalId: r.commandId, runId: r.runId, requestId: r.commandId };
          const shown = { content: JSON.stringify(r.output ?? null), withheld: false };
          const value = observationForResult(ids, shown, new Date());
          return { topic: t.observations, key: r.runId, value };
        },
      };
  }
}

async function main(): Promise<void> {
  const child = readChildConfig(process.env);
  const role = child.role;
  if (role === undefined) throw new TypeError('a relay hop needs a role');
  const config = loadConfig(process.env);
  const logger = createLogger({
    level: config.logLevel,
    stage: `relay-${role}`,
    instanceId: config.instanceId,
  });
  const route = routeOf(role, gateTopics(config.topicPrefix));
  const bus = createBus({ brokers: [...config.kafkaBrokers], clientId: `relay-${role}`, logger });
  const codec = createCodec({
    registryUrl: config.schemaRegistryUrl,
    logger,
    compatibility: 'NONE',
  });
  for (const topic of route.to) await codec.register(`${topic}-value`, route.schema);
  const loop = await startStageLoop({
    stage: `relay-${role}`,
    groupId: `${config.groupPrefix}relay.${role}`,
    topics: [{ name: route.from, plainJsonAllowed: route.plainJsonAllowed }],
    bus,
    codec,
    logger,
    instanceId: config.instanceId,
    ...fetchOptions(config),
    handle: (msg) => Promise.resolve([route.forward(msg)]),
    onCrash: exitOnCrash,
    ...(process.env['BENCH_TRACE'] === '1'
      ? {
          metrics: {
            batch: (seconds: number, size: number) =>
              process.stderr.write(
                `${Date.now()} batch ${size} in ${(seconds * 1000).toFixed(1)} ms\n`,
              ),
            transaction: (seconds: number, chunks: number, partitions: number) =>
              process.stderr.write(
                `${Date.now()} transaction of ${chunks} chunks to ${partitions} partitions ` +
                  `in ${(seconds * 1000).toFixed(1)} ms\n`,
              ),
          },
        }
      : {}),
  });
  announceReady(child, () => loop.ready());
  stopOnSignal(async () => {
    await loop.stop();
    await bus.close();
  });
}

await main();
