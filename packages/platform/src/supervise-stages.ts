/**
 * Runs stages in one process: configuration → logger → connections → stages → HTTP, every resource
 * registered with one lifecycle so a signal or a fatal error closes them in reverse order. A stage
 * loop that stops on its own stops the process (exit 1), so that an orchestrator restarts it. Each
 * service's main.ts, `toolgate start` and the end-to-end tests all start stages through here.
 */
import { ConfigError, type Deployment } from '@toolgate/shared';
import type { DestinationStream } from 'pino';
import { httpPortFor, loadConfig, type Config, type Env, type ServiceStage } from './config.js';
import { startApprovalServer } from './approval-server.js';
import { Fault } from './fault.js';
import { startHttpServer, type Route } from './http.js';
import { BUS_FAULTS } from './kafka/index.js';
import type { Lifecycle, ProcessEvents } from './lifecycle.js';
import type { Logger } from './logger.js';
import { processLifecycle, processLogger } from './process-shell.js';
import { createMetrics } from './metrics.js';
import { openGateRuntime, type GateRuntime, type GateRuntimeOptions } from './gate-runtime.js';
import type { RunningStage, StageDeps } from './stage-deps.js';
import { stopBound } from './stage-options.js';
import type { RedisConnectionOptions } from './redis/redis-connection.js';

/** The key of the approval API's port in {@link SupervisedStages.ports}. */
export const APPROVAL_PORT_NAME = 'approval';

/** What a stage service module exports. */
export interface StageModule {
  readonly STAGE: ServiceStage;
  /** Starts the stage on `deps`; resolves once it consumes. */
  start(deps: StageDeps): Promise<RunningStage>;
  /**
   * HTTP routes the stage serves on a server of their own, apart from health and metrics (the
   * confirm stage's approval API, at TOOLGATE_APPROVAL_HOST and _PORT).
   */
  routes?(deps: StageDeps): readonly Route[];
}

/** Options of {@link superviseStages}. */
export interface SuperviseOptions {
  readonly env: Env;
  readonly deployment: Deployment;
  readonly modules: readonly StageModule[];
  /** Where log lines go; default standard output. */
  readonly logDestination?: DestinationStream;
  /**
   * Ends the process after a stop (1 after a stage loop stopped on its own); default
   * `process.exit`. Not called when the start fails, unless closing what it opened hangs past the
   * deadline: the caller reports the error and exits. Tests pass their own.
   */
  readonly exit?: (code: number) => void;
  /** Where signals are heard; default `process`. */
  readonly process?: ProcessEvents;
  /** The clock; default the system clock. */
  readonly now?: () => Date;
  /**
   * A Kafka identity per stage, when stages of one process must each act as their own principal
   * (the tests, the demo); a stage without one uses TOOLGATE_KAFKA_*.
   */
  readonly identities?: GateRuntimeOptions['identities'];
}

/** Stages running under one lifecycle. */
export interface SupervisedStages {
  readonly config: Config;
  readonly runtime: GateRuntime;
  readonly stages: readonly RunningStage[];
  /**
   * The HTTP port (health, metrics) of each stage, by stage name, and the approval API's port
   * under {@link APPROVAL_PORT_NAME} when the confirm stage runs here.
   */
  readonly ports: Readonly<Record<string, number>>;
  readonly lifecycle: Lifecycle;
  /** True when every stage has joined its group. */
  ready(): boolean;
}

/**
 * Starts `modules` with shared connections. Throws a `ConfigError` listing every configuration
 * problem (the environment's and the deployment's, before connecting anything), a Fault when
 * infrastructure cannot be reached, or whatever else failed (an HTTP port in use). Past the
 * environment, it first closes what it opened and logs the cause, and calls no `exit` (but at the
 * hard deadline), so the caller chooses the exit code. Once started, a
 * stage loop that stops on its own (its producer fenced, a consumer crash kafkajs does not
 * restart) stops every stage with a fatal log line and exit code 1.
 */
export async function superviseStages(options: SuperviseOptions): Promise<SupervisedStages> {
  const config = loadConfig(options.env);
  if (options.modules.some((m) => m.STAGE === 'execute') && config.commandKey === undefined) {
    throw new ConfigError('configuration', [
      'TOOLGATE_COMMAND_KEY is required where the execute stage runs (it proves every command)',
    ]);
  }
  const name = options.modules.length === 1 ? options.modules[0]!.STAGE : 'gate';
  // A logger per stage, not a child that names the stage again: pino would write `stage` twice.
  const loggerOf = (stage: string) => processLogger(config, stage, options);
  const logger = loggerOf(name);
  const lifecycle = processLifecycle(config, logger, options);
  try {
    // The stages share the runtime's Redis connection: each stage's metrics see all of its calls.
    const storeWatchers: NonNullable<RedisConnectionOptions['observe']>[] = [];
    const runtime = await openGateRuntime(config, options.deployment, logger, {
      observeStore: (op, s, ok) => {
        for (const watch of storeWatchers) watch(op, s, ok);
      },
      stages: options.modules.map((m) => m.STAGE),
      ...(options.identities === undefined ? {} : { identities: options.identities }),
    });
    lifecycle.onStop('connections', () => runtime.close());
    const stages: RunningStage[] = [];
    const ports: Record<string, number> = {};
    for (const [i, module] of options.modules.entries()) {
      const stageLogger = options.modules.length === 1 ? logger : loggerOf(module.STAGE);
      const onLoopCrash = (error: Error) => {
        if (lifecycle.stopping) return;
        stageLogger.fatal({ err: error }, crashLine(error));
        void lifecycle.stop(`${module.STAGE} stage loop crashed`, error);
      };
      const deps = { ...depsFor(module.STAGE, config, runtime, options, stageLogger), onLoopCrash };
      storeWatchers.push((op, seconds, ok) => deps.metrics.observeStore(op, seconds, ok));
      const running = await module.start(deps);
      lifecycle.onStop(`${module.STAGE} stage`, () => running.stop());
      stages.push(running);
      const port =
        options.modules.length > 1 && config.httpPort !== undefined && config.httpPort !== 0
          ? config.httpPort + i
          : httpPortFor(config, module.STAGE);
      // A stage's own routes (the approval API) never share the port of /metrics: they are for
      // approvers, who may be given them across the network, and metrics are the operator's.
      // They listen first, so that whoever waits for /readyz finds them answering.
      const routes = module.routes?.(deps) ?? [];
      const api =
        routes.length === 0
          ? undefined
          : await naming('TOOLGATE_APPROVAL_PORT', config.approvalPort, deps.logger, () =>
              startApprovalServer({
                config,
                routes,
                ready: () => running.ready(),
                logger: deps.logger,
              }),
            );
      if (api !== undefined) {
        lifecycle.onStop(`${module.STAGE} approval http`, () => api.close());
        ports[APPROVAL_PORT_NAME] = api.port;
      }
      const http = await naming('TOOLGATE_HTTP_PORT', port, deps.logger, () =>
        startHttpServer({
          port,
          host: config.httpHost,
          metrics: deps.metrics,
          ready: () => running.ready(),
          membership: () => running.membership(),
          logger: deps.logger,
        }),
      );
      lifecycle.onStop(`${module.STAGE} http`, () => http.close());
      ports[module.STAGE] = http.port;
      deps.logger.info(
        {
          port: http.port,
          ...(api === undefined ? {} : { approvalPort: api.port, approvalTls: api.tls }),
        },
        `${module.STAGE} started`,
      );
    }
    return {
      config,
      runtime,
      stages,
      ports,
      lifecycle,
      ready: () => stages.every((s) => s.ready()),
    };
  } catch (error) {
    await lifecycle.abandon('start-up failed', error);
    throw error;
  }
}

/**
 * The fatal line of a loop that stopped on its own. A fenced one was superseded by a process with
 * its instance id (restarting it fences that one in turn, so the line says so rather than
 * promising that a restart helps), or stalled so long that the broker aborted its transaction.
 */
function crashLine(error: Error): string {
  return error instanceof Fault && error.code === BUS_FAULTS.fenced
    ? 'fenced: a newer process with the same instance id took over this stage, or this one stalled past its transaction timeout; stopping the process'
    : 'the stage loop stopped on its own; stopping the process so that it is restarted';
}

/**
 * Starts a server on `port`; when the port is taken (another instance of the stage on this host,
 * started with the same settings), first logs which variable gives each instance its own.
 */
async function naming<T>(
  variable: string,
  port: number,
  logger: Logger,
  start: () => Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'EADDRINUSE') {
      logger.error(
        { port, variable },
        `port ${port} is in use, perhaps by another instance on this host: give each instance its own ${variable} (0 picks a free port)`,
      );
    }
    throw error;
  }
}

function depsFor(
  stage: ServiceStage,
  config: Config,
  runtime: GateRuntime,
  options: SuperviseOptions,
  logger: Logger,
): StageDeps {
  return {
    config,
    logger,
    metrics: createMetrics(stage),
    bus: runtime.busFor(stage),
    codec: runtime.codec,
    ...runtime.store,
    objects: runtime.objects,
    deployment: options.deployment,
    gate: runtime.gate,
    outputs: runtime.outputs,
    now: options.now ?? (() => new Date()),
    // The stages stop one after another within the one deadline.
    stopTimeoutMs: stopBound(config.shutdownTimeoutMs, options.modules.length),
  };
}
