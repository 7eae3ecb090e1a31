/**
 * The example's tools as a process: `npx tsx examples/billing/tool-worker.ts`. Reads the same
 * `TOOLGATE_*` variables as the gate's stages (Kafka, registry, Redis, prefixes), except the
 * integrity key, which a tool worker never holds. Seeds the example's objects where they are
 * missing (as the gate does; seeding never overwrites), so it can start before or after the gate.
 */
import { ConfigError } from '@toolgate/shared';
import {
  createLifecycle,
  createLogger,
  createRedisObjectStore,
  createStore,
  OBJECT_NAMESPACE,
} from '@toolgate/platform';
import { loadWorkerConfig, startToolWorker, WORKER_STAGE } from '@toolgate/tool-worker';
import { SEED_OBJECTS } from './data.js';
import { createBillingHandlers } from './tool-handlers.js';

async function main(): Promise<void> {
  const config = loadWorkerConfig(process.env);
  const { logLevel: level, instanceId } = config;
  const logger = createLogger({ level, stage: WORKER_STAGE, instanceId });
  const lifecycle = createLifecycle({ logger, timeoutMs: config.shutdownTimeoutMs });
  try {
    const store = createStore({ url: config.redisUrl, prefix: config.redisPrefix, logger });
    lifecycle.onStop('object store', () => store.close());
    const objects = createRedisObjectStore(store, OBJECT_NAMESPACE);
    await objects.seed(SEED_OBJECTS);
    const tools = createBillingHandlers(objects);
    const worker = await startToolWorker({
      config,
      name: config.workerName ?? 'billing',
      tools,
      logger,
      // Consuming nothing more: exit non-zero, so that whatever runs the process starts it again.
      onCrash: (error) => void lifecycle.stop('tool worker stopped on its own', error),
    });
    lifecycle.onStop('tool worker', () => worker.stop());
  } catch (error) {
    await lifecycle.stop('start-up failed', error);
  }
}

main().catch((error: unknown) => {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(
    `toolgate tool worker: invalid configuration:\n${error.problems.map((p) => `  - ${p}\n`).join('')}`,
  );
  process.exitCode = 2;
});
