/**
 * The console's configuration: where it listens and which APIs it calls for the person signed in.
 * It holds no Kafka or Redis credentials; it reads no key but the deployment's session keys.
 */
import {
  CONFIG_VARIABLES,
  loadVariables,
  type ConfigOf,
  type Env,
  type VariableTable,
} from '@toolgate/platform';

const URL_PATTERN = '^https?://[^\\s/?#]+(/[^\\s?#]*)?$';

/** TOOLGATE_CONSOLE_*, TOOLGATE_APPROVAL_URL and TOOLGATE_ANALYTICS_URL. */
export const CONSOLE_VARIABLES = {
  CONSOLE_HOST: {
    key: 'consoleHost',
    kind: 'string',
    default: '127.0.0.1',
    schema: { pattern: '^[A-Za-z0-9.:_-]+$' },
    description:
      'Address the console binds to. The default keeps it on this machine (loopback); put a TLS proxy in front to serve it further.',
  },
  CONSOLE_PORT: {
    key: 'consolePort',
    kind: 'integer',
    default: 9120,
    schema: { minimum: 0, maximum: 65_535 },
    description: 'Port of the console; 0 picks a free one.',
  },
  CONSOLE_ORIGIN: {
    key: 'consoleOrigin',
    kind: 'string',
    default: '',
    schema: { pattern: '^(https?://[A-Za-z0-9.:\\[\\]_-]+)?$' },
    description:
      'The origin people reach the console at (`https://console.example.com`) when a proxy serves it; `https` marks the session cookie Secure. Empty: the console is reached directly, on a loopback name or TOOLGATE_CONSOLE_HOST.',
  },
  APPROVAL_URL: {
    key: 'approvalUrl',
    kind: 'string',
    default: 'http://127.0.0.1:9110',
    schema: { pattern: URL_PATTERN },
    description: "The confirm stage's approval API, called with the signed-in person's token.",
  },
  ANALYTICS_URL: {
    key: 'analyticsUrl',
    kind: 'string',
    default: 'http://127.0.0.1:9105',
    schema: { pattern: URL_PATTERN },
    description: "The analytics service's API, called with the signed-in person's token.",
  },
  CONSOLE_DEV_SIGN_INS: {
    key: 'consoleDevSignIns',
    kind: 'string',
    default: '',
    description:
      'A JSON file `[{label, token}]` of development sign-ins: the sign-in page offers each as a one-click button, marked as such, and the console warns at start. For development only; empty: sign-in is by pasting a session token.',
  },
  LOG_LEVEL: CONFIG_VARIABLES.LOG_LEVEL,
  INSTANCE_ID: CONFIG_VARIABLES.INSTANCE_ID,
  SHUTDOWN_TIMEOUT_MS: CONFIG_VARIABLES.SHUTDOWN_TIMEOUT_MS,
} as const satisfies VariableTable;

/** The loaded {@link CONSOLE_VARIABLES}. */
export type ConsoleConfig = ConfigOf<typeof CONSOLE_VARIABLES>;

/** Reads and validates the console's variables; throws a ConfigError naming every problem. */
export function loadConsoleConfig(env: Env): ConsoleConfig {
  return loadVariables(env, CONSOLE_VARIABLES);
}
