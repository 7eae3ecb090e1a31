/**
 * Runs the console as a process: its variables → logger → the deployment's session verifier and
 * any development sign-ins → the server, under one lifecycle that a signal stops. `main.ts` and
 * `toolgate start console` start it through here.
 */
import {
  createGateWithSessionKeys,
  processLifecycle,
  processLogger,
  type Lifecycle,
  type ProcessEvents,
} from '@toolgate/platform';
import type { Deployment } from '@toolgate/shared';
import type { DestinationStream } from 'pino';
import { loadConsoleConfig, type ConsoleConfig } from './console-config.js';
import { readDevSignIns } from './dev-sign-ins.js';
import { SERVICE, startConsole, type RunningConsole } from './service.js';

/** Options of {@link superviseConsole}. */
export interface SuperviseConsoleOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Its session keys verify who signs in. */
  readonly deployment: Deployment;
  /** Where the console's URL is printed; default standard output. */
  readonly print?: (line: string) => void;
  readonly logDestination?: DestinationStream;
  readonly exit?: (code: number) => void;
  readonly process?: ProcessEvents;
}

/** The running console process. */
export interface SupervisedConsole {
  readonly config: ConsoleConfig;
  readonly console: RunningConsole;
  readonly lifecycle: Lifecycle;
}

/** Starts the console; throws a ConfigError naming every bad variable before listening. */
export async function superviseConsole(
  options: SuperviseConsoleOptions,
): Promise<SupervisedConsole> {
  const config = loadConsoleConfig(options.env);
  const logger = processLogger(config, SERVICE, options);
  const lifecycle = processLifecycle(config, logger, options);
  try {
    const verifier = createGateWithSessionKeys(options.deployment, {}, logger).verifier;
    const devFile = config.consoleDevSignIns;
    const devSignIns = devFile === '' ? [] : readDevSignIns(devFile);
    if (devFile !== '') {
      logger.warn(
        { file: devFile, signIns: devSignIns.length },
        'DEVELOPMENT SIGN-INS ARE ON: anyone who reaches the console can sign in as these people. Never use TOOLGATE_CONSOLE_DEV_SIGN_INS outside development.',
      );
    }
    const running = await startConsole({
      port: config.consolePort,
      host: config.consoleHost,
      ...(config.consoleOrigin === '' ? {} : { publicOrigin: config.consoleOrigin }),
      approvalUrl: config.approvalUrl,
      analyticsUrl: config.analyticsUrl,
      verifier,
      devSignIns,
      logger,
    });
    lifecycle.onStop('console http', () => running.close());
    logger.info({ port: running.port }, `${SERVICE} started`);
    (options.print ?? ((line) => process.stdout.write(line)))(`console: ${running.url}\n`);
    return { config, console: running, lifecycle };
  } catch (error) {
    await lifecycle.abandon('start-up failed', error);
    throw error;
  }
}
