/**
 * The process configuration: `TOOLGATE_*` environment variables, validated with ajv (defaults,
 * integer coercion, every problem at once), returned typed and frozen. The environment is an
 * argument: only `main.ts` passes `process.env`.
 */
import { ConfigError, observationKeyProblems } from '@toolgate/shared';
import { kafkaIdentityFromEnv, resolveKafkaSecurity } from '../kafka/index.js';
import { approvalTlsProblems } from './approval-variables.js';
import { problemsOf, validatorFor } from './validate-variables.js';
import {
  CONFIG_VARIABLES,
  DEPLOYMENT_VARIABLES,
  OTHER_VARIABLES,
  type Config,
} from './variables.js';
import {
  ENV_PREFIX,
  type ConfigOf,
  type Env,
  type VariableSpec,
  type VariableTable,
} from './variable-spec.js';

/**
 * Reads the shared variables (and those of `extension`, a stage's own) from `env`: unset or empty
 * takes the default, integers are coerced, every problem is collected.
 *
 * @throws ConfigError listing every problem, each naming its variable (never a secret's value).
 * @throws TypeError when `extension` redefines a shared variable or key (a programming error).
 */
export function loadConfig<X extends VariableTable = Record<never, VariableSpec>>(
  env: Env,
  extension?: X,
): Readonly<Config & ConfigOf<X>> {
  return loadVariables(env, merged(extension)) as Readonly<Config & ConfigOf<X>>;
}

/**
 * Reads exactly the variables of `table` from `env`, the way {@link loadConfig} does (defaults,
 * integer coercion, every problem at once, frozen). For processes that are not gate stages and
 * must not need the gate's shared variables, e.g. a tool worker, which has no business holding
 * TOOLGATE_INTEGRITY_KEY: with it, it could forge the gate's internal envelopes.
 *
 * @throws ConfigError listing every problem, each naming its variable (never a secret's value).
 */
export function loadVariables<T extends VariableTable>(env: Env, table: T): Readonly<ConfigOf<T>> {
  const input = Object.fromEntries(
    Object.entries(table).flatMap(([name, spec]) => {
      const value = valueOf(env[ENV_PREFIX + name], spec);
      return value === undefined ? [] : [[ENV_PREFIX + name, value]];
    }),
  );
  const validate = validatorFor(table);
  const problems = validate(input) ? [] : problemsOf(validate.errors ?? []);
  if ('KAFKA_SASL_MECHANISM' in table) {
    problems.push(...kafkaSecurityProblems(input));
  }
  if ('APPROVAL_TLS_CERT_FILE' in table) problems.push(...approvalTlsProblems(input));
  const observationKey = input[`${ENV_PREFIX}OBSERVATION_KEY`];
  if ('OBSERVATION_KEY' in table && typeof observationKey === 'string') {
    problems.push(
      ...observationKeyProblems(observationKey).map((p) => `${ENV_PREFIX}OBSERVATION_KEY: ${p}`),
    );
  }
  if (problems.length > 0) throw new ConfigError('configuration', problems);
  const config = Object.fromEntries(
    Object.entries(table).flatMap(([name, spec]) => {
      const value: unknown = input[ENV_PREFIX + name];
      return value === undefined
        ? []
        : [[spec.key, Array.isArray(value) ? Object.freeze(value) : value]];
    }),
  );
  return Object.freeze(config) as Readonly<ConfigOf<T>>;
}

/**
 * The Kafka identity's problems as a whole (a mechanism without a password, a certificate without
 * its key, a file that cannot be read), checked once each variable is valid on its own.
 */
function kafkaSecurityProblems(input: Readonly<Record<string, unknown>>): readonly string[] {
  const text = Object.fromEntries(
    Object.entries(input).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  const outcome = resolveKafkaSecurity(kafkaIdentityFromEnv(text));
  return outcome.ok ? [] : outcome.problems;
}

function merged(extension: VariableTable | undefined): VariableTable {
  const base: VariableTable = CONFIG_VARIABLES;
  if (extension === undefined) return base;
  const keys = new Set(Object.values(base).map((spec) => spec.key));
  for (const [name, spec] of Object.entries(extension)) {
    if (name in base || keys.has(spec.key)) {
      throw new TypeError(`configuration extension redefines ${ENV_PREFIX}${name} (${spec.key})`);
    }
  }
  return { ...base, ...extension };
}

/** The text of a variable as a value to validate; unset and empty take the default. */
function valueOf(text: string | undefined, spec: VariableSpec): unknown {
  if (text === undefined || text === '') {
    return typeof spec.default === 'function' ? spec.default() : spec.default;
  }
  // ajv's coercion reads 0x50, 1e4 and ' 8 ' as numbers: only decimal digits are an integer here.
  if (spec.kind === 'integer') return /^-?[0-9]+$/.test(text) ? text : Number.NaN;
  if (spec.kind !== 'list') return text;
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * `TOOLGATE_*` variables in `env` that neither the configuration (with `extension`) nor the
 * deployment reads: most likely typos. Names only, for a start-up warning.
 */
export function unknownVariables(env: Env, extension?: VariableTable): string[] {
  const known = new Set(
    [
      ...Object.keys(merged(extension)),
      ...Object.keys(DEPLOYMENT_VARIABLES),
      ...Object.keys(OTHER_VARIABLES),
    ].map((name) => ENV_PREFIX + name),
  );
  return Object.keys(env)
    .filter((name) => name.startsWith(ENV_PREFIX) && !known.has(name))
    .sort();
}

/** The configuration with every secret replaced by `[redacted]`, for the start-up log line. */
export function describeConfig(
  config: Readonly<Record<string, unknown>>,
  extension?: VariableTable,
): Record<string, unknown> {
  const secrets = new Set(
    Object.values(merged(extension))
      .filter((spec) => spec.secret === true)
      .map((spec) => spec.key),
  );
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [key, secrets.has(key) ? '[redacted]' : value]),
  );
}
