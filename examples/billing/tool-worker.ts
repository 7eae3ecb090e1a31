/**
 * The example's tools as a process: `npx tsx examples/billing/tool-worker.ts`. Reads the same
 * `TOOLGATE_*` variables as the gate's stages for Kafka (its own identity, e.g. `worker-billing`),
 * the registry, Redis (a user confined to its ledger and objects) and the prefixes, plus its tool
 * keys (TOOLGATE_TOOL_KEYS); never the integrity or command key, which a tool worker does not
 * hold. With TOOLGATE_HTTP_PORT it serves `/healthz`, `/readyz` and `/metrics` (among them the
 * commands it dropped for want of a valid proof). Seeds the example's objects where they are
 * missing (as the gate does; seeding never overwrites), so it can start before or after the gate.
 */
import { ConfigError } from '@toolgate/shared';
import {
  CONFIG_VARIABLES,
  connectRedis,
  createLifecycle,
  createLogger,
  createRedisObjectStore,
  loadVariables,
  OBJECT_NAMESPACE,
  startHttpServer,
  type AdapterLogger,
  type Lifecycle,
} from '@toolgate/platform';
import {
  startToolWorker,
  WORKER_STAGE,
  WORKER_VARIABLES,
  type ToolWorker,
} from '@toolgate/tool-worker';
import { SEED_OBJECTS } from './data.js';
import { createBillingHandlers } from './tool-handlers.js';

/** The worker's variables, and where its HTTP endpoint listens (none without a port). */
const VARIABLES = {
  ...WORKER_VARIABLES,
  HTTP_HOST: CONFIG_VARIABLES.HTTP_HOST,
  HTTP_PORT: CONFIG_VARIABLES.HTTP_PORT,
};

async function main(): Promise<void> {
  const config = loadVariables(process.env, VARIABLES);
  const { logLevel: level, instanceId } = config;
  const logger = createLogger({ level, stage: WORKER_STAGE, instanceId });
  const lifecycle = createLifecycle({ logger, timeoutMs: config.shutdownTimeoutMs });
  try {
    const redis = connectRedis({ url: config.redisUrl, prefix: config.redisPrefix, logger });
    lifecycle.onStop('object store', () => redis.close());
    const objects = createRedisObjectStore(redis, OBJECT_NAMESPACE);
    await objects.seed(SEED_OBJECTS);
    const worker = await startToolWorker({
      config,
      name: config.workerName ?? 'billing',
      tools: createBillingHandlers(objects),
      logger,
      // Consuming nothing more: exit non-zero, so that whatever runs the process starts it again.
      onCrash: (error) => void lifecycle.stop('tool worker stopped on its own', error),
    });
    lifecycle.onStop('tool worker', () => worker.stop());
    if (config.httpPort !== undefined) {
      await serveHttp(worker, { port: config.httpPort, host: config.httpHost }, logger, lifecycle);
    }
  } catch (error) {
    await lifecycle.stop('start-up failed', error);
  }
}

/**
 * `/healthz`, `/readyz` (the worker consumes; both name its instance and the command partitions it
 * holds) and `/metrics` (the worker's own).
 */
async function serveHttp(
  worker: ToolWorker,
  where: { readonly port: number; readonly host: string },
  logger: AdapterLogger,
  lifecycle: Lifecycle,
): Promise<void> {
  const server = await startHttpServer({
    ...where,
    metrics: worker.metrics,
    ready: () => worker.ready(),
    membership: () => worker.membership(),
    logger,
  });
  lifecycle.onStop('HTTP server', () => server.close());
  logger.info({ port: server.port }, 'serving /healthz, /readyz and /metrics');
}

main().catch((error: unknown) => {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(
    `toolgate tool worker: invalid configuration:\n${error.problems.map((p) => `  - ${p}\n`).join('')}`,
  );
  process.exitCode = 2;
});
