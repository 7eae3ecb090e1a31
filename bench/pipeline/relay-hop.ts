/**
 * One hop of the relay, the gate's baseline: the platform's stage loop (same kafkajs settings,
 * same read-committed consumer, same one-transaction-per-batch commit, same registry wire format)
 * with a handler that does no work. hop1–hop3 forward the value unchanged to the next pipeline
 * topic; hop4 forwards the Command the driver put in the proposal to its tool's command topic
 * (`commands.<tool>`, the gate's tools), with the proof of that tool's key as the gate's execute
 * gives it, since the echo worker is the real tool worker and drops a command without one; `obs`
 * turns each ToolResult into a result Observation on its tenant's observations topic. Connects as
 * the stack's `bench-relay` principal. Reads the `TOOLGATE_*` variables of {@link RELAY_VARIABLES}
 * and BENCH_CHILD.
 */
import {
  CONFIG_VARIABLES,
  createBus,
  createCodec,
  createLogger,
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  fetchOptions,
  gateTopics,
  KAFKA_SECURITY_VARIABLES,
  kafkaSecurityOf,
  loadVariables,
  startStageLoop,
  type GateTopics,
  type Incoming,
  type Outgoing,
  type VariableTable,
} from '@toolgate/platform';
import {
  deriveToolKey,
  MESSAGE_SCHEMAS,
  observationForResult,
  PROOF_HEADER,
  toolProof,
  type ToolResult,
} from '@toolgate/shared';
import {
  announceReady,
  exitOnCrash,
  readChildConfig,
  relayTenantOf,
  stopOnSignal,
  type RelayRole,
} from './child-config.js';

const {
  KAFKA_BROKERS,
  SCHEMA_REGISTRY_URL,
  TOPIC_PREFIX,
  GROUP_PREFIX,
  LOG_LEVEL,
  INSTANCE_ID,
  FETCH_MAX_WAIT_MS,
  FETCH_MIN_BYTES,
  FETCH_BUSY_MIN_BYTES,
  COMMAND_KEY,
} = CONFIG_VARIABLES;

/**
 * The variables a relay hop reads: where Kafka and the registry are and who it is to Kafka, its
 * prefixes, logging, instance id and fetch settings, and (hop4 only) the command key its tools'
 * keys derive from. No integrity or observation key: the relay tags and signs nothing else.
 */
export const RELAY_VARIABLES = {
  KAFKA_BROKERS,
  ...KAFKA_SECURITY_VARIABLES,
  SCHEMA_REGISTRY_URL,
  TOPIC_PREFIX,
  GROUP_PREFIX,
  LOG_LEVEL,
  INSTANCE_ID,
  FETCH_MAX_WAIT_MS,
  FETCH_MIN_BYTES,
  FETCH_BUSY_MIN_BYTES,
  COMMAND_KEY,
} as const satisfies VariableTable;

/** Permissive schema of the relay's internal topics: any JSON object (the registry needs a draft). */
const ANY_OBJECT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'RelayEnvelope',
  type: 'object',
} as const;

type Schema = Readonly<Record<string, unknown>>;

interface Route {
  readonly from: string;
  /** The subjects it registers with their schemas: those of the topics it writes. */
  readonly registers: readonly (readonly [subject: string, schema: Schema])[];
  readonly plainJsonAllowed: boolean;
  forward(msg: Incoming): Outgoing;
}

const asRecord = (v: unknown) => (v ?? {}) as Record<string, unknown>;

const subjectsOf = (topics: readonly string[], schema: Schema) =>
  topics.map((topic) => [`${topic}-value`, schema] as const);

/** Forwards the value and headers unchanged from `from` to `to`. */
function pass(from: string, to: string, plainJsonAllowed: boolean): Route {
  return {
    from,
    registers: subjectsOf([to], ANY_OBJECT),
    plainJsonAllowed,
    forward: (msg) => ({ topic: to, key: msg.key, value: msg.value, headers: msg.headers }),
  };
}

/** hop4: the proposal's Command to its tool's topic, proved with that tool's key. */
function commandRoute(t: GateTopics, toolKeys: ReadonlyMap<string, string>): Route {
  return {
    from: t.cleared,
    registers: subjectsOf(
      EXAMPLE_TOOLS.map((tool) => t.command(tool)),
      MESSAGE_SCHEMAS.commands,
    ),
    plainJsonAllowed: false,
    forward: (msg) => {
      const command = asRecord(asRecord(msg.value)['command']);
      const tool = String(command['tool']);
      const key = toolKeys.get(tool);
      if (key === undefined) throw new TypeError(`the relay has no key for tool ${tool}`);
      const topic = t.command(tool);
      return {
        topic,
        key: String(command['idempotencyKey']),
        value: command,
        sign: (bytes) => ({ [PROOF_HEADER]: toolProof(key, topic, bytes) }),
      };
    },
  };
}

/**
 * obs: each result as a result Observation on its tenant's topic. It also registers the results
 * schema, as the gate's stages do: the echo worker registers nothing and waits for it.
 */
function observationRoute(t: GateTopics): Route {
  return {
    from: t.results,
    registers: [
      ...subjectsOf(
        EXAMPLE_TENANTS.map((tenant) => t.observationsOf(tenant)),
        MESSAGE_SCHEMAS.observations,
      ),
      ...subjectsOf([t.results], MESSAGE_SCHEMAS.results),
    ],
    plainJsonAllowed: true,
    forward: (msg) => {
      const r = msg.value as ToolResult;
      const ids = { proposalId: r.commandId, runId: r.runId, requestId: r.commandId };
      const shown = { content: JSON.stringify(r.output ?? null), withheld: false };
      const value = observationForResult(ids, shown, new Date());
      const topic = t.observationsOf(relayTenantOf(r.idempotencyKey));
      return { topic, key: r.runId, value };
    },
  };
}

function routeOf(role: RelayRole, t: GateTopics, commandKey: string | undefined): Route {
  switch (role) {
    case 'hop1':
      return pass(t.proposals, t.validated, true);
    case 'hop2':
      return pass(t.validated, t.authorized, false);
    case 'hop3':
      return pass(t.authorized, t.cleared, false);
    case 'hop4':
      if (commandKey === undefined) throw new TypeError('hop4 needs TOOLGATE_COMMAND_KEY');
      return commandRoute(
        t,
        new Map(EXAMPLE_TOOLS.map((tool) => [tool, deriveToolKey(commandKey, tool)])),
      );
    case 'obs':
      return observationRoute(t);
  }
}

/** With BENCH_TRACE=1: each chunk and each transaction to the log. */
function traceMetrics() {
  if (process.env['BENCH_TRACE'] !== '1') return {};
  return {
    metrics: {
      batch: (seconds: number, size: number) =>
        process.stderr.write(`${Date.now()} batch ${size} in ${(seconds * 1000).toFixed(1)} ms\n`),
      transaction: (seconds: number, chunks: number, partitions: number) =>
        process.stderr.write(
          `${Date.now()} transaction of ${chunks} chunks to ${partitions} partitions ` +
            `in ${(seconds * 1000).toFixed(1)} ms\n`,
        ),
    },
  };
}

async function main(): Promise<void> {
  const child = readChildConfig(process.env);
  const role = child.role;
  if (role === undefined) throw new TypeError('a relay hop needs a role');
  const config = loadVariables(process.env, RELAY_VARIABLES);
  const logger = createLogger({
    level: config.logLevel,
    stage: `relay-${role}`,
    instanceId: config.instanceId,
  });
  const route = routeOf(role, gateTopics(config.topicPrefix), config.commandKey);
  const bus = createBus({
    brokers: [...config.kafkaBrokers],
    clientId: `relay-${role}`,
    logger,
    security: kafkaSecurityOf(config),
  });
  const codec = createCodec({
    registryUrl: config.schemaRegistryUrl,
    logger,
    compatibility: 'NONE',
  });
  for (const [subject, schema] of route.registers) await codec.register(subject, schema);
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
    ...traceMetrics(),
  });
  announceReady(child, () => loop.ready());
  stopOnSignal(async () => {
    await loop.stop();
    await bus.close();
  });
}

await main();
