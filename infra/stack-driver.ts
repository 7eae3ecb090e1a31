/**
 * `stack:up`, `stack:down` and `stack:status` as functions. `up` first plans every component
 * (reuse what answers, check ports and prerequisites of what must start) and only then starts
 * anything, so a doomed run starts nothing; `down` stops exactly what `up` recorded in pid files.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { adminAccess, ensureScramUsers, kafkaLog, preflightKafka, startKafka } from './kafka.js';
import { ensureAcls, ensureTopics, kafkaReady, probeKafka } from './kafka-admin.js';
import { isListening, listenerOf } from './ports.js';
import {
  isRunning,
  readPidRecord,
  runningFromPidFile,
  stopFromPidFile,
  type PidRecord,
  type StartedProcess,
  type StopOutcome,
} from './processes.js';
import {
  aclFile,
  ensureRedisUsers,
  preflightRedis,
  probeRedis,
  probeRedisCluster,
  REDIS_ADMIN,
  redisLog,
  redisUrlAs,
  startRedis,
} from './redis.js';
import {
  logOf as clusterLog,
  pidFileOf as clusterPidFile,
  redisClusterDir,
  startRedisCluster,
  stopRedisCluster,
} from './redis-cluster.js';
import { redisPassword } from './stack-secrets.js';
import { stackBindings } from './stack-principals.js';
import {
  preflightRegistry,
  probeRegistry,
  registryLog,
  registryReady,
  startRegistry,
} from './registry.js';
import {
  COMPONENTS,
  OVERRIDES,
  REDIS_CLUSTER_NODES,
  addressOf,
  type ComponentName,
  type StackConfig,
} from './stack-config.js';
import { StackError, displayPath, problemIn } from './stack-error.js';
import { seconds, waitUntilReady, type Attempt, type Reporter } from './wait.js';

/** How `up` treats one component. */
type Plan =
  | { readonly action: 'reuse' }
  | { readonly action: 'wait'; readonly record: PidRecord }
  | { readonly action: 'start' };

/** What the driver needs to know about one component. */
interface ComponentDriver {
  readonly name: ComponentName;
  /** What answers here, for "port taken by something that is not …". */
  readonly kind: string;
  /** Local ports a managed instance binds, with the variable that moves each. */
  readonly ports: readonly { readonly port: number; readonly variable: string }[];
  readonly pidFile: string;
  readonly logFile: string;
  /** How long a started instance may take to answer. */
  readonly readyWithinMs: number;
  /** How long a stop may take before SIGKILL. */
  readonly stopGraceMs: number;
  probe(): Promise<Attempt>;
  /** Full readiness; `startedHere` when this checkout's `up` started the process. */
  ready(startedHere: boolean): Promise<Attempt>;
  preflight(): void;
  start(reporter: Reporter): Promise<StartedProcess>;
  /** Stops what `start` started; default: the process of `pidFile`, within `stopGraceMs`. */
  stop?(): Promise<StopOutcome>;
}

function driversFor(config: StackConfig): Record<ComponentName, ComponentDriver> {
  const pid = (name: string): string => path.join(config.runDir, `${name}.pid`);
  const { addresses, ports } = config;
  const kafka = adminAccess(config);
  const redisAdmin = config.external.has('redis')
    ? addresses.redisUrl
    : redisUrlAs(config, REDIS_ADMIN);
  return {
    redis:
      config.redisCluster && !config.external.has('redis')
        ? redisClusterDriver(config, redisAdmin)
        : {
            name: 'redis',
            kind: 'Redis',
            ports: [{ port: ports.redis, variable: 'TOOLGATE_STACK_REDIS_PORT' }],
            pidFile: pid('redis'),
            logFile: redisLog(config),
            readyWithinMs: 15_000,
            stopGraceMs: 10_000,
            probe: () => probeRedis(redisAdmin),
            ready: () => probeRedis(redisAdmin),
            preflight: () => preflightRedis(config),
            start: () => Promise.resolve(startRedis(config)),
          },
    kafka: {
      name: 'kafka',
      kind: 'a Kafka broker',
      ports: [
        { port: ports.kafka, variable: 'TOOLGATE_STACK_KAFKA_PORT' },
        { port: ports.kafkaController, variable: 'TOOLGATE_STACK_KAFKA_CONTROLLER_PORT' },
      ],
      pidFile: pid('kafka'),
      logFile: kafkaLog(config),
      readyWithinMs: 120_000,
      stopGraceMs: 60_000,
      probe: () => probeKafka(kafka),
      ready: () => kafkaReady(kafka),
      preflight: () => preflightKafka(config),
      start: (reporter) => startKafka(config, reporter),
    },
    registry: {
      name: 'registry',
      kind: 'a schema registry',
      ports: [
        { port: ports.registry, variable: 'TOOLGATE_STACK_REGISTRY_PORT' },
        { port: ports.registryManagement, variable: 'TOOLGATE_STACK_REGISTRY_MANAGEMENT_PORT' },
      ],
      pidFile: pid('registry'),
      logFile: registryLog(config),
      readyWithinMs: 180_000,
      // The first stop writes the JVM's class-data archive (see registryJvmOptions).
      stopGraceMs: 90_000,
      probe: () => probeRegistry(addresses.schemaRegistryUrl),
      ready: (startedHere) =>
        startedHere ? registryReady(config) : probeRegistry(addresses.schemaRegistryUrl),
      preflight: () => preflightRegistry(config),
      start: (reporter) => startRegistry(config, reporter),
    },
  };
}

/** The managed Redis as a cluster of six nodes (TOOLGATE_STACK_REDIS=cluster). */
function redisClusterDriver(config: StackConfig, adminUrl: string): ComponentDriver {
  const dir = redisClusterDir(config);
  const nodes = Array.from({ length: REDIS_CLUSTER_NODES }, (_, i) => i);
  const { redis, redisClusterBus } = config.ports;
  return {
    name: 'redis',
    kind: 'a Redis Cluster node',
    ports: nodes.flatMap((i) => [
      { port: redis + i, variable: 'TOOLGATE_STACK_REDIS_PORT' },
      { port: redisClusterBus + i, variable: 'TOOLGATE_STACK_REDIS_CLUSTER_BUS_PORT' },
    ]),
    pidFile: clusterPidFile(dir, 0),
    logFile: clusterLog(dir, 0),
    readyWithinMs: 30_000,
    stopGraceMs: 5_000,
    probe: () => probeRedisCluster(adminUrl),
    ready: () => probeRedisCluster(adminUrl),
    preflight: () => preflightRedis(config),
    async start() {
      const cluster = await startRedisCluster({
        dir,
        host: config.host,
        firstPort: redis,
        firstBusPort: redisClusterBus,
        acl: aclFile(config),
        adminPassword: redisPassword(config, REDIS_ADMIN),
        env: config.env,
      });
      const first = cluster.process(0);
      if (first === undefined) throw new StackError('redis', 'the cluster started no node 0');
      return first;
    },
    stop: async () => (await stopRedisCluster(dir))[0] ?? 'not-started',
  };
}

/**
 * Brings the stack up: reuses what answers, starts what is missing, waits until each component
 * really answers, then creates the declared topics. Throws a `StackError` naming the component,
 * the reason and the log to read.
 */
export async function stackUp(config: StackConfig, reporter: Reporter): Promise<void> {
  const started = Date.now();
  mkdirSync(config.runDir, { recursive: true });
  const drivers = driversFor(config);
  const plans = new Map<ComponentName, Plan>();
  for (const name of COMPONENTS) plans.set(name, await planFor(drivers[name], config));
  const summary: string[] = [];
  for (const name of COMPONENTS) {
    const plan = plans.get(name) ?? { action: 'reuse' };
    summary.push(`${name} ${await carryOut(drivers[name], plan, config, reporter)}`);
    // Before the registry starts: it keeps its schemas in Kafka, as a principal of its own.
    if (name === 'kafka') await secureKafka(config, reporter);
    if (name === 'redis') await secureRedis(config, reporter);
  }
  const created = await ensureTopics(adminAccess(config));
  reporter.line(
    `topics: ${created.length === 0 ? 'all declared topics exist' : `created ${created.join(', ')}`}`,
  );
  reporter.line(`up in ${seconds(Date.now() - started)} (${summary.join(', ')})`);
}

/** The stack's SCRAM users (those added since storage was formatted) and its ACLs. */
async function secureKafka(config: StackConfig, reporter: Reporter): Promise<void> {
  if (!config.external.has('kafka')) {
    const added = ensureScramUsers(config);
    if (added.length > 0) reporter.line(`kafka: added SCRAM users ${added.join(', ')}`);
  }
  const created = await ensureAcls(adminAccess(config), stackBindings());
  reporter.line(
    `kafka: ${created === 0 ? 'every ACL of the table is in place' : `created ${created} ACL bindings`} (default deny)`,
  );
}

/**
 * The gate's and the worker's Redis users, on a Redis the stack did not start, when the user of
 * TOOLGATE_REDIS_URL may make them; else a line saying they are the operator's to make.
 */
async function secureRedis(config: StackConfig, reporter: Reporter): Promise<void> {
  if (!config.external.has('redis')) return;
  try {
    const created = await ensureRedisUsers(config, config.addresses.redisUrl);
    reporter.line(
      `redis: ${created.length === 0 ? "the gate's and the worker's users exist" : `created users ${created.join(', ')}`}`,
    );
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    reporter.line(
      `redis: could not create the gate's and the worker's users (${why}); an administrator of that Redis makes them (docs/security.md)`,
    );
  }
}

async function planFor(driver: ComponentDriver, config: StackConfig): Promise<Plan> {
  const answer = await driver.probe();
  if (answer.ready) return { action: 'reuse' };
  const address = addressOf(config, driver.name);
  if (config.external.has(driver.name)) {
    const variable = OVERRIDES[driver.name];
    throw new StackError(
      driver.name,
      `nothing answers at ${address} (${answer.why}); ${variable} is set, so stack:up starts nothing for it`,
    );
  }
  const ours = runningFromPidFile(driver.pidFile);
  if (ours) return { action: 'wait', record: ours };
  for (const { port, variable } of driver.ports) {
    if (await isListening(config.host, port))
      throw portTaken(driver, config, port, variable, answer.why);
  }
  driver.preflight();
  return { action: 'start' };
}

function portTaken(
  driver: ComponentDriver,
  config: StackConfig,
  port: number,
  variable: string,
  why: string,
): StackError {
  const holder = listenerOf(port) ?? 'another program';
  note(
    driver.logFile,
    `stack:up: ${config.host}:${port} is held by ${holder}; probing it as ${driver.kind} said: ${why}`,
  );
  return new StackError(
    driver.name,
    `port ${config.host}:${port} is taken by ${holder}, which is not ${driver.kind} started by stack:up: stop it or set ${variable}`,
    { logFile: driver.logFile },
  );
}

async function carryOut(
  driver: ComponentDriver,
  plan: Plan,
  config: StackConfig,
  reporter: Reporter,
): Promise<string> {
  const address = addressOf(config, driver.name);
  if (plan.action === 'reuse') {
    await expectReady(driver, false, reporter, { deadlineMs: 30_000 });
    const owner = config.external.has(driver.name)
      ? 'external'
      : runningFromPidFile(driver.pidFile)
        ? 'started by stack:up'
        : 'not started by stack:up';
    reporter.line(`${driver.name}: reusing ${address} (${owner})`);
    return 'reused';
  }
  const spawned = plan.action === 'start' ? await driver.start(reporter) : undefined;
  const record = spawned?.record ?? (plan.action === 'wait' ? plan.record : undefined);
  reporter.line(
    `${driver.name}: ${spawned ? 'started' : 'already starting'} (pid ${record?.pid}, log ${displayPath(driver.logFile)})`,
  );
  const abandon = (): string | undefined => {
    const code = spawned?.exitCode();
    if (code !== undefined)
      return `exited (${code === 'signal' ? 'killed by a signal' : `code ${code}`}) during start-up: ${lastProblem(driver.logFile)}`;
    return record && !isRunning(record)
      ? `exited during start-up: ${lastProblem(driver.logFile)}`
      : undefined;
  };
  const elapsed = await expectReady(driver, true, reporter, {
    deadlineMs: driver.readyWithinMs,
    abandon,
  });
  reporter.line(`${driver.name}: ready at ${address} after ${seconds(elapsed)}`);
  return spawned ? 'started' : 'waited for';
}

async function expectReady(
  driver: ComponentDriver,
  startedHere: boolean,
  reporter: Reporter,
  options: { deadlineMs: number; abandon?: () => string | undefined },
): Promise<number> {
  const outcome = await waitUntilReady(
    `${driver.name}: waiting to answer`,
    () => driver.ready(startedHere),
    reporter,
    options,
  );
  if (outcome.ready) return outcome.elapsedMs;
  const reason = outcome.timedOut
    ? `did not answer within ${seconds(options.deadlineMs)} (${outcome.why})`
    : outcome.why;
  throw new StackError(driver.name, reason, { logFile: driver.logFile });
}

/** The one-line reason a log gives for a failure (see {@link problemIn}). */
export function lastProblem(logFile: string): string {
  if (!existsSync(logFile)) return 'no log written';
  return problemIn(readFileSync(logFile, 'utf8').slice(-65_536));
}

function note(logFile: string, line: string): void {
  mkdirSync(path.dirname(logFile), { recursive: true });
  appendFileSync(logFile, `[${new Date().toISOString()}] ${line}\n`);
}

/**
 * Stops, in reverse start order, exactly the processes `stack:up` recorded in this stack
 * directory's pid files. External components and processes it did not start are left alone.
 */
export async function stackDown(config: StackConfig, reporter: Reporter): Promise<void> {
  const drivers = driversFor(config);
  for (const name of [...COMPONENTS].reverse()) {
    const driver = drivers[name];
    const pid = readPidRecord(driver.pidFile)?.pid;
    const outcome = await (driver.stop?.() ?? stopFromPidFile(driver.pidFile, driver.stopGraceMs));
    const said = {
      stopped: `stopped (pid ${pid})`,
      killed: `did not stop within ${seconds(driver.stopGraceMs)}, killed (pid ${pid})`,
      'not-running': 'was not running',
      'not-started': config.external.has(name)
        ? `external (${OVERRIDES[name]}), left alone`
        : 'not started by stack:up, left alone',
    }[outcome];
    reporter.line(`${name}: ${said}`);
  }
}

/** One row of `stack:status`. */
export interface ComponentStatus {
  readonly component: ComponentName;
  readonly up: boolean;
  readonly address: string;
  /** `external (VAR)`, `started by stack:up (pid N)`, `not started by stack:up`, or why it is down. */
  readonly detail: string;
}

/** Each component's state and address; probes run in parallel. */
export async function stackStatus(config: StackConfig): Promise<ComponentStatus[]> {
  const drivers = driversFor(config);
  return Promise.all(
    COMPONENTS.map(async (component) => {
      const answer = await drivers[component].probe();
      const record = readPidRecord(drivers[component].pidFile);
      const ours = record !== undefined && isRunning(record);
      const detail = config.external.has(component)
        ? `external (${OVERRIDES[component]})`
        : ours
          ? `started by stack:up (pid ${record.pid}, log ${displayPath(drivers[component].logFile)})`
          : answer.ready
            ? 'not started by stack:up'
            : answer.why;
      return { component, up: answer.ready, address: addressOf(config, component), detail };
    }),
  );
}
