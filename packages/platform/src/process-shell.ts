/**
 * The logger and lifecycle every supervised process (the stages, analytics) opens first, from its
 * configuration and the options its caller (main, the CLI, a test) gives.
 */
import type { DestinationStream } from 'pino';
import { createLifecycle, type Lifecycle, type ProcessEvents } from './lifecycle.js';
import { createLogger, type Logger } from './logger.js';

/** What a caller may give a supervised process: where logs go, how it exits, where signals come. */
export interface ProcessShellOptions {
  /** Where log lines go; default standard output. */
  readonly logDestination?: DestinationStream;
  /** Ends the process after a stop; default `process.exit`. */
  readonly exit?: (code: number) => void;
  /** Where signals are heard; default `process`. */
  readonly process?: ProcessEvents;
}

/** The configuration a process's logger and lifecycle read. */
export interface ProcessShellConfig {
  readonly logLevel: string;
  readonly instanceId: string;
  readonly shutdownTimeoutMs: number;
}

/** A logger naming `stage` on every line, as the process's configuration and options say. */
export function processLogger(
  config: ProcessShellConfig,
  stage: string,
  options: ProcessShellOptions,
): Logger {
  return createLogger({
    level: config.logLevel,
    stage,
    instanceId: config.instanceId,
    ...(options.logDestination === undefined ? {} : { destination: options.logDestination }),
  });
}

/** The process's one lifecycle, logging to `logger`, with its configured hard deadline. */
export function processLifecycle(
  config: ProcessShellConfig,
  logger: Logger,
  options: ProcessShellOptions,
): Lifecycle {
  return createLifecycle({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    ...(options.exit === undefined ? {} : { exit: options.exit }),
    ...(options.process === undefined ? {} : { process: options.process }),
  });
}
