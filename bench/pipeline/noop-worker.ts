/**
 * The benchmark's tool worker: the real `startToolWorker` (proof check, command check, Redis
 * ledger, one transaction per batch, proved results in the wire format) with handlers that do
 * nothing and answer a small fixed output. Serves the gate's six tools, in the gate or in the
 * relay; who it is (Kafka principal, Redis user, tool keys, worker name) comes from its
 * `TOOLGATE_*` variables. Commands per transaction: 500, as a gate stage (the worker's default of
 * 1 caps it near 40 commands/s).
 */
import { startToolWorker, toolOk, type ToolHandlers } from '@toolgate/tool-worker';
import { announceReady, exitOnCrash, readChildConfig, stopOnSignal } from './child-config.js';

/** Commands per transaction: the stage loop's own default. */
export const WORKER_BATCH = 500;

async function main(): Promise<void> {
  const child = readChildConfig(process.env);
  const tools = child.tools ?? [];
  const noop = () => Promise.resolve(toolOk({ done: true }));
  const handlers: ToolHandlers = Object.fromEntries(tools.map((tool) => [tool, noop]));
  const worker = await startToolWorker({
    env: process.env,
    tools: handlers,
    maxBatchMessages: WORKER_BATCH,
    onCrash: exitOnCrash,
  });
  announceReady(child, () => worker.ready());
  stopOnSignal(() => worker.stop());
}

await main();
