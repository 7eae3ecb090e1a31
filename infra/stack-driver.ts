/**
 * `stack:up`, `stack:down` and `stack:status` as functions. `up` first plans every component
 * (reuse what answers, check ports and prerequisites of what must start) and only then starts
 * anything, so a doomed run starts nothing; `down` stops exactly what `up` recorded in pid files.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  adminAccess,
  ensureScramUsers,
  kafkaLog,
  kafkaNodeFiles,
  preflightKafka,
  startKafka,
} from './kafka.js';
import { brokerServes, ensureAcls, ensureTopics, kafkaReady, probeKafka } from './kafka-admin.js';
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
  stackRedisClusterOptions,
  startRedisCluster,
  stopRedisCluster,
} from './redis-cluster.js';
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
  kafkaReplication,
  type ComponentName,
  type StackConfig,
} from './stack-config.js';
import { StackError, displayPath, problemIn } from './stack-error.js';
import { seconds, waitUntilReady, type Attempt, type Reporter } from './wait.js';

/** How `up` treats one component. */
type Plan =
  | { readonly action: 'reuse' }
  | {
      readonly action: 'bring-up';
      /** Processes to start. */
      readonly start: readonly ProcessDriver[];
      /** Processes an earlier `up` started that are still starting or running. */
      readonly running: readonly { readonly process: ProcessDriver; readonly record: PidRecord }[];
    };

/** One process of a component: the only one, or one node of the stack's Kafka. */
interface ProcessDriver {
  /** How lines name it: the component's name, or e.g. `kafka node 2`. */
  readonly label: string;
  /** Local ports it binds, with the variable that moves each. */
  readonly ports: readonly { readonly port: number; readonly variable: string }[];
  readonly pidFile: string;
  readonly logFile: string;
  /** Whether it answers on its own (for a component of several processes). */
  probe?(): Promise<Attempt>;
  start(reporter: Reporter): Promise<StartedProcess>;
}

/** What the driver needs to know about one component. */
interface ComponentDriver {
  readonly name: ComponentName;
  /** What answers here, for "port taken by something that is not …". */
  readonly kind: string;
  /** Its processes, in start order. */
  readonly processes: readonly ProcessDriver[];
  /** The log a failure of the whole component points at. */
  readonly logFile: string;
  /** How long a started instance may take to answer. */
  readonly readyWithinMs: number;
  /** How long a stop may take before SIGKILL. */
  readonly stopGraceMs: number;
  probe(): Promise<Attempt>;
  /** Full readiness; `startedHere` when this checkout's `up` started the process. */
  ready(startedHere: boolean): Promise<Attempt>;
  preflight(): void;
  /**
   * Stops the whole component at once (a Redis Cluster's nodes); default: each process from its
   * pid file, within `stopGraceMs`.
   */
  stop?(): Promise<StopOutcome>;
}

function driversFor(config: StackConfig): Record<ComponentName, ComponentDriver> {
  const pid = (name: string): string => path.join(config.runDir, `${name}.pid`);
  const { addresses, ports, kafkaNodes } = config;
  const kafka = adminAccess(config);
  const redisAdmin = config.external.has('redis')
    ? addresses.redisUrl
    : redisUrlAs(config, REDIS_ADMIN);
  const nodes = config.external.has('kafka') ? 1 : kafkaNodes.length;
  return {
    redis:
      config.redisCluster && !config.external.has('redis')
        ? redisClusterDriver(config, redisAdmin)
        : {
            name: 'redis',
            kind: 'Redis',
            processes: [
              {
                label: 'redis',
                ports: [{ port: ports.redis, variable: 'TOOLGATE_STACK_REDIS_PORT' }],
                pidFile: pid('redis'),
                logFile: redisLog(config),
                start: () => Promise.resolve(startRedis(config)),
              },
            ],
            logFile: redisLog(config),
            readyWithinMs: 15_000,
            stopGraceMs: 10_000,
            probe: () => probeRedis(redisAdmin),
            ready: () => probeRedis(redisAdmin),
            preflight: () => preflightRedis(config),
          },
    kafka: {
      name: 'kafka',
      kind: 'a Kafka broker',
      processes: kafkaNodes.map((node) => {
        const files = kafkaNodeFiles(config, node);
        const address = `${config.host}:${node.port}`;
        return {
          label: kafkaNodes.length === 1 ? 'kafka' : `kafka node ${node.id}`,
          ports: [
            { port: node.port, variable: 'TOOLGATE_STACK_KAFKA_PORT' },
            { port: node.controllerPort, variable: 'TOOLGATE_STACK_KAFKA_CONTROLLER_PORT' },
          ],
          pidFile: files.pidFile,
          logFile: files.log,
          ...(kafkaNodes.length === 1
            ? {}
            : { probe: () => brokerServes({ ...kafka, brokers: [address] }, node.id) }),
          start: (reporter: Reporter) => startKafka(config, reporter, node),
        };
      }),
      logFile: kafkaLog(config),
      readyWithinMs: 120_000,
      stopGraceMs: 60_000,
      probe: () => probeKafka(kafka, nodes),
      ready: () => kafkaReady(kafka, nodes),
      preflight: () => preflightKafka(config),
    },
    registry: {
      name: 'registry',
      kind: 'a schema registry',
      processes: [
        {
          label: 'registry',
          ports: [
            { port: ports.registry, variable: 'TOOLGATE_STACK_REGISTRY_PORT' },
            {
              port: ports.registryManagement,
              variable: 'TOOLGATE_STACK_REGISTRY_MANAGEMENT_PORT',
            },
          ],
          pidFile: pid('registry'),
          logFile: registryLog(config),
          start: (reporter: Reporter) => startRegistry(config, reporter),
        },
      ],
      logFile: registryLog(config),
      readyWithinMs: 180_000,
      // The first stop writes the JVM's class-data archive (see registryJvmOptions).
      stopGraceMs: 90_000,
      probe: () => probeRegistry(addresses.schemaRegistryUrl),
      ready: (startedHere) =>
        startedHere ? registryReady(config) : probeRegistry(addresses.schemaRegistryUrl),
      preflight: () => preflightRegistry(config),
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
    // One process as far as start-up goes: the cluster is created across all its nodes at once,
    // and node 0 stands for it.
    processes: [
      {
        label: 'redis cluster',
        ports: nodes.flatMap((i) => [
          { port: redis + i, variable: 'TOOLGATE_STACK_REDIS_PORT' },
          { port: redisClusterBus + i, variable: 'TOOLGATE_STACK_REDIS_CLUSTER_BUS_PORT' },
        ]),
        pidFile: clusterPidFile(dir, 0),
        logFile: clusterLog(dir, 0),
        async start() {
          const cluster = await startRedisCluster(stackRedisClusterOptions(config));
          const first = cluster.process(0);
          if (first === undefined) throw new StackError('redis', 'the cluster started no node 0');
          return first;
        },
      },
    ],
    logFile: clusterLog(dir, 0),
    readyWithinMs: 30_000,
    stopGraceMs: 5_000,
    probe: () => probeRedisCluster(adminUrl),
    ready: () => probeRedisCluster(adminUrl),
    preflight: () => preflightRedis(config),
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
  const replication = config.external.has('kafka') ? undefined : kafkaReplication(config);
  const created = await ensureTopics(adminAccess(config), replication);
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
  const start: ProcessDriver[] = [];
  const running: { process: ProcessDriver; record: PidRecord }[] = [];
  for (const process of driver.processes) {
    const ours = runningFromPidFile(process.pidFile);
    if (ours) {
      running.push({ process, record: ours });
      continue;
    }
    for (const { port, variable } of process.ports) {
      if (await isListening(config.host, port))
        throw portTaken(driver, process, config, port, variable, answer.why);
    }
    start.push(process);
  }
  if (start.length > 0) driver.preflight();
  return { action: 'bring-up', start, running };
}

function portTaken(
  driver: ComponentDriver,
  process: ProcessDriver,
  config: StackConfig,
  port: number,
  variable: string,
  why: string,
): StackError {
  const holder = listenerOf(port) ?? 'another program';
  note(
    process.logFile,
    `stack:up: ${config.host}:${port} is held by ${holder}; probing it as ${driver.kind} said: ${why}`,
  );
  return new StackError(
    driver.name,
    `port ${config.host}:${port} is taken by ${holder}, which is not ${driver.kind} started by stack:up: stop it or set ${variable}`,
    { logFile: process.logFile },
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
      : driver.processes.every((p) => runningFromPidFile(p.pidFile))
        ? 'started by stack:up'
        : 'not started by stack:up';
    reporter.line(`${driver.name}: reusing ${address} (${owner})`);
    return 'reused';
  }
  const watched: { process: ProcessDriver; record: PidRecord; spawned?: StartedProcess }[] = [
    ...plan.running,
  ];
  for (const { process, record } of plan.running) {
    const state = process.label === driver.name ? 'already starting' : 'running';
    reporter.line(
      `${process.label}: ${state} (pid ${record.pid}, log ${displayPath(process.logFile)})`,
    );
  }
  for (const process of plan.start) {
    const spawned = await process.start(reporter);
    watched.push({ process, record: spawned.record, spawned });
    reporter.line(
      `${process.label}: started (pid ${spawned.record.pid}, log ${displayPath(process.logFile)})`,
    );
  }
  const abandon = (): string | undefined => {
    for (const { process, record, spawned } of watched) {
      const code = spawned?.exitCode();
      const who = process.label === driver.name ? '' : `${process.label} `;
      if (code !== undefined)
        return `${who}exited (${code === 'signal' ? 'killed by a signal' : `code ${code}`}) during start-up: ${lastProblem(process.logFile)}`;
      if (!isRunning(record))
        return `${who}exited during start-up: ${lastProblem(process.logFile)}`;
    }
    return undefined;
  };
  const elapsed = await expectReady(driver, true, reporter, {
    deadlineMs: driver.readyWithinMs,
    abandon,
  });
  reporter.line(`${driver.name}: ready at ${address} after ${seconds(elapsed)}`);
  return plan.start.length > 0 ? 'started' : 'waited for';
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
 * directory's pid files (the nodes of one component together). External components and processes
 * it did not start are left alone.
 */
export async function stackDown(config: StackConfig, reporter: Reporter): Promise<void> {
  const drivers = driversFor(config);
  for (const name of [...COMPONENTS].reverse()) {
    const driver = drivers[name];
    if (driver.stop !== undefined) {
      const outcome = await driver.stop();
      reporter.line(`${name}: ${stopLine(outcome, name, config, driver.stopGraceMs)}`);
      continue;
    }
    const lines = await Promise.all(
      driver.processes.map(async (process) => {
        const pid = readPidRecord(process.pidFile)?.pid;
        const outcome = await stopFromPidFile(process.pidFile, driver.stopGraceMs);
        return `${process.label}: ${stopLine(outcome, name, config, driver.stopGraceMs, pid)}`;
      }),
    );
    for (const line of lines) reporter.line(line);
  }
}

/** What `stack:down` says of one stop. */
function stopLine(
  outcome: StopOutcome,
  name: ComponentName,
  config: StackConfig,
  graceMs: number,
  pid?: number,
): string {
  const which = pid === undefined ? '' : ` (pid ${pid})`;
  return {
    stopped: `stopped${which}`,
    killed: `did not stop within ${seconds(graceMs)}, killed${which}`,
    'not-running': 'was not running',
    'not-started': config.external.has(name)
      ? `external (${OVERRIDES[name]}), left alone`
      : 'not started by stack:up, left alone',
  }[outcome];
}

/** One row of `stack:status`. */
export interface ComponentStatus {
  readonly component: ComponentName;
  /** What the row is about: the component, or one of its processes (`kafka node 2`). */
  readonly label: string;
  readonly up: boolean;
  readonly address: string;
  /** `external (VAR)`, `started by stack:up (pid N)`, `not started by stack:up`, or why it is down. */
  readonly detail: string;
}

/**
 * Each component's state and address, and for a component of several processes (the nodes of a
 * three-node Kafka) a row for each; probes run in parallel.
 */
export async function stackStatus(config: StackConfig): Promise<ComponentStatus[]> {
  const drivers = driversFor(config);
  const rows = await Promise.all(
    COMPONENTS.map(async (component) => {
      const driver = drivers[component];
      const answer = await driver.probe();
      const address = addressOf(config, component);
      const detail = config.external.has(component)
        ? `external (${OVERRIDES[component]})`
        : ownDetail(driver, answer);
      const row = { component, label: component, up: answer.ready, address, detail };
      if (driver.processes.length === 1 || config.external.has(component)) return [row];
      return [
        row,
        ...(await Promise.all(driver.processes.map((p) => processRow(config, component, p)))),
      ];
    }),
  );
  return rows.flat();
}

/** Who started a component of the stack's own, or why it is down. */
function ownDetail(driver: ComponentDriver, answer: Attempt): string {
  const [only, ...others] = driver.processes;
  if (only !== undefined && others.length === 0) {
    return ownership(only) ?? (answer.ready ? 'not started by stack:up' : answer.why);
  }
  if (!answer.ready) return answer.why;
  const ours = driver.processes.every((p) => ownership(p) !== undefined);
  return `${driver.processes.length} nodes${ours ? ', started by stack:up' : ''}`;
}

async function processRow(
  config: StackConfig,
  component: ComponentName,
  process: ProcessDriver,
): Promise<ComponentStatus> {
  const answer = (await process.probe?.()) ?? { ready: true };
  const address = `${config.host}:${process.ports.map((p) => p.port).join('/')}`;
  const own = ownership(process);
  const detail = answer.ready
    ? (own ?? 'not started by stack:up')
    : [answer.why, own].filter(Boolean).join('; ');
  return { component, label: process.label, up: answer.ready, address, detail };
}

function ownership(process: ProcessDriver): string | undefined {
  const record = readPidRecord(process.pidFile);
  return record !== undefined && isRunning(record)
    ? `started by stack:up (pid ${record.pid}, log ${displayPath(process.logFile)})`
    : undefined;
}
