/**
 * `toolgate start <stage|all>`: runs gate stages until a signal. Tools run elsewhere and talk to
 * the gate through `toolgate.commands.<tool>` and `toolgate.results`.
 */
import { superviseAnalytics } from '@toolgate/analytics';
import * as authorize from '@toolgate/authorize';
import * as confirm from '@toolgate/confirm';
import { superviseConsole } from '@toolgate/console';
import * as execute from '@toolgate/execute';
import * as validate from '@toolgate/validate';
import {
  isConfigurationError,
  superviseStages,
  type Env,
  type StageModule,
} from '@toolgate/platform';
import { CliError, EXIT } from '../cli-error.js';
import { optionalString, type Command } from '../command.js';
import { loadDeployment } from '../load-deployment.js';
import type { Deployment } from '@toolgate/shared';

/** The stages, in ladder order. */
export const STAGE_MODULES: readonly StageModule[] = [validate, authorize, confirm, execute];

/** The service beside the stages: it reads the audit topic and needs no deployment file. */
export const ANALYTICS = 'analytics';

/** The web console: it calls the approval and analytics APIs and needs the deployment's session keys. */
export const CONSOLE = 'console';

/** `toolgate start <stage|all> --config <file>`. */
export const startCommand: Command = {
  name: 'start',
  summary:
    'Run gate stages (validate, authorize, confirm, execute), analytics, the console, or all until Ctrl-C.',
  usage:
    'toolgate start <validate|authorize|confirm|execute|analytics|console|all> [--config <file>]',
  details: [
    'Addresses, prefixes, keys and the Kafka identity come from TOOLGATE_* variables',
    '(docs/configuration.md). A stage runs as its own principal toolgate-<stage> (TOOLGATE_KAFKA_*);',
    'all runs every stage as the one identity given, which must be allowed all of their work.',
    '--config (or TOOLGATE_CONFIG) names the deployment file. Each stage serves /healthz, /readyz',
    'and /metrics on its HTTP port; the confirm stage also serves the approval API.',
    'N instances of a stage: run the same command N times with the same configuration, each with',
    'its own stable TOOLGATE_INSTANCE_ID (two processes with one id fence each other) and, on one',
    'host, its own TOOLGATE_HTTP_PORT (and TOOLGATE_APPROVAL_PORT for confirm). They share the input',
    "topics' partitions, so more instances than partitions stand idle. /healthz and /readyz name",
    'the instance, its group and the partitions it holds (docs/deployment.md).',
    'TOOLGATE_EXECUTE_INPUTS=cleared or results runs one half of execute, to run the halves apart.',
    'TOOLGATE_FETCH_MAX_WAIT_MS (default 25) is how long a busy stage waits for more records: lower answers sooner, at some CPU.',
    'analytics (toolgate-analytics) counts the audit topic in windows and raises alerts; it needs no',
    'integrity key and no Redis, and serves its HTTP port (default 9105). With --config it takes the',
    "deployment's alert rules (analytics.alerts) and serves the windows and alerts API to operators",
    "with the deployment's session tokens; without, default rules and no API. all runs it too.",
    'console serves the web console (default http://127.0.0.1:9120/; docs/console.md): people sign in',
    'with their session token and decide confirmations through the approval API (TOOLGATE_APPROVAL_URL)',
    'and watch refusals through the analytics API (TOOLGATE_ANALYTICS_URL). It needs --config for the',
    "deployment's session keys and holds no Kafka or Redis credentials. all does not start it.",
  ],
  options: {
    config: { type: 'string', description: 'the deployment file (default TOOLGATE_CONFIG)' },
  },
  async run({ values, positionals, io }) {
    if (positionals[0] === CONSOLE && positionals.length === 1) {
      const file = optionalString(values, 'config') ?? io.env['TOOLGATE_CONFIG'];
      if (file === undefined || file === '')
        throw new CliError('--config (or TOOLGATE_CONFIG) is required', EXIT.usage);
      return runConsole(io, await loadDeployment(file));
    }
    const modules = selected(positionals);
    const analytics = positionals[0] === ANALYTICS || positionals[0] === 'all';
    const file = optionalString(values, 'config') ?? io.env['TOOLGATE_CONFIG'];
    if (modules.length === 0) {
      return runAnalytics(io, file === undefined ? undefined : await loadDeployment(file));
    }
    if (file === undefined)
      throw new CliError('--config (or TOOLGATE_CONFIG) is required', EXIT.usage);
    const deployment = await loadDeployment(file);
    let started = false;
    const stopped = new Promise<number>((resolve) => {
      // The lifecycle calls exit once, after closing everything or at its hard deadline; make
      // sure the process really ends then, even if a client left a handle open.
      const exit = (code: number) => {
        resolve(code === EXIT.failed && !started ? EXIT.unavailable : code);
        setTimeout(() => process.exit(code), 500).unref();
      };
      superviseStages({ env: io.env, deployment, modules, exit })
        .then(async (stages) => {
          if (!analytics) return;
          // One process, one stop: the stages' lifecycle also stops the analytics service.
          const running = await superviseAnalytics({
            env: analyticsEnv(io.env),
            deployment,
            exit: (code) => {
              if (code !== 0) void stages.lifecycle.stop('the analytics service stopped');
            },
          });
          stages.lifecycle.onStop('analytics', () => running.lifecycle.stop('the gate stopped'));
        })
        .then(
          () => (started = true),
          (error: unknown) => {
            io.stderr.write(
              `toolgate start: ${error instanceof Error ? error.message : String(error)}\n`,
            );
            resolve(isConfigurationError(error) ? EXIT.usage : EXIT.unavailable);
          },
        );
    });
    return stopped;
  },
};

/**
 * The environment of the analytics service beside the stages: with TOOLGATE_HTTP_PORT set (not 0),
 * the stages listen on it and the ports after it, and analytics on the next one.
 */
function analyticsEnv(env: Env): Env {
  const port = env['TOOLGATE_HTTP_PORT'];
  if (port === undefined || port === '' || port === '0') return env;
  return { ...env, TOOLGATE_HTTP_PORT: String(Number(port) + STAGE_MODULES.length) };
}

/** `toolgate start analytics`: the analytics service alone, until a signal. */
function runAnalytics(
  io: { readonly env: Env; readonly stderr: { write(text: string): unknown } },
  deployment: Deployment | undefined,
): Promise<number> {
  return new Promise<number>((resolve) => {
    const exit = (code: number) => {
      resolve(code);
      setTimeout(() => process.exit(code), 500).unref();
    };
    superviseAnalytics({
      env: io.env,
      exit,
      ...(deployment === undefined ? {} : { deployment }),
    }).catch((error: unknown) => {
      io.stderr.write(
        `toolgate start: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      resolve(isConfigurationError(error) ? EXIT.usage : EXIT.unavailable);
    });
  });
}

/** `toolgate start console`: the web console alone, until a signal. */
function runConsole(
  io: {
    readonly env: Env;
    readonly stdout: { write(text: string): unknown };
    readonly stderr: { write(text: string): unknown };
  },
  deployment: Deployment,
): Promise<number> {
  return new Promise<number>((resolve) => {
    const exit = (code: number) => {
      resolve(code);
      setTimeout(() => process.exit(code), 500).unref();
    };
    superviseConsole({
      env: io.env,
      deployment,
      exit,
      print: (line) => io.stdout.write(line),
    }).catch((error: unknown) => {
      io.stderr.write(
        `toolgate start: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      resolve(isConfigurationError(error) ? EXIT.usage : EXIT.unavailable);
    });
  });
}

function selected(positionals: readonly string[]): readonly StageModule[] {
  const [which, ...rest] = positionals;
  if (which === undefined || rest.length > 0)
    throw new CliError('name one stage, analytics, or all', EXIT.usage);
  if (which === 'all') return STAGE_MODULES;
  if (which === ANALYTICS) return [];
  const module = STAGE_MODULES.find((m) => m.STAGE === which);
  if (module === undefined)
    throw new CliError(
      `unknown stage "${which}"; one of ${STAGE_MODULES.map((m) => m.STAGE).join(', ')}, ${ANALYTICS}, ${CONSOLE}, all`,
      EXIT.usage,
    );
  return [module];
}
