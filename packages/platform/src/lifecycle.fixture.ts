/**
 * A child process for lifecycle.test.ts: a lifecycle on the real `process`, one resource that
 * closes (`ok`), hangs (`hang`) or an uncaught error after start (`throw`). Prints `ready` once
 * its handlers are installed.
 */
import { createLifecycle } from './lifecycle.js';
import { createLogger } from './logger.js';

const mode = process.argv[2] ?? 'ok';
const logger = createLogger({
  level: 'info',
  stage: 'fixture',
  instanceId: 'child',
  destination: process.stderr,
});
const lifecycle = createLifecycle({ logger, timeoutMs: 300 });
lifecycle.onStop('resource', () =>
  mode === 'hang' ? new Promise<void>(() => undefined) : undefined,
);
// Keeps the event loop alive, as a consumer would.
setInterval(() => undefined, 60_000);
if (mode === 'throw')
  setTimeout(() => {
    throw new Error('boom');
  }, 10);
process.stdout.write('ready\n');
