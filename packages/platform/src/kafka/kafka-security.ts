/**
 * Who a process is to Kafka: SASL (SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN) and TLS (a CA file; a
 * client certificate and key for mTLS), from the `TOOLGATE_KAFKA_*` variables or an SDK's options.
 * Checked as a whole at start: a half-given combination is reported with every problem at once,
 * and a secret's value is never part of a problem, a log line or an error.
 */
import { readFileSync } from 'node:fs';
import type { VariableSpec } from '../config/variable-spec.js';

/** The SASL mechanisms a client may use, as Kafka's own configuration names them. */
export const SASL_MECHANISMS = ['SCRAM-SHA-512', 'SCRAM-SHA-256', 'PLAIN'] as const;

/** One of {@link SASL_MECHANISMS}. */
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/**
 * The value of TOOLGATE_KAFKA_SASL_MECHANISM that asks for no SASL: with a client certificate
 * (mTLS, the certificate is the identity), or, without one, an anonymous client: allowed only when
 * asked for by name, and logged as a warning at every start.
 */
export const NO_SASL = 'none';

/** A SASL identity. */
export interface SaslCredentials {
  readonly mechanism: SaslMechanism;
  readonly username: string;
  /** A secret: never logged. */
  readonly password: string;
}

/** TLS settings: the CA to trust (default the system's) and a client certificate for mTLS. */
export interface TlsSettings {
  /** PEM of the CA(s) that signed the brokers' certificates; default Node's trusted CAs. */
  readonly ca?: string;
  /** PEM of the client certificate (mTLS); given with `key`. */
  readonly cert?: string;
  /** PEM of the client certificate's private key; a secret. */
  readonly key?: string;
}

/**
 * How a client authenticates to Kafka and protects its connections. No `sasl` and no
 * `tls.cert` is an anonymous client, which a secured cluster refuses.
 */
export interface KafkaSecurity {
  readonly sasl?: SaslCredentials;
  /** TLS is used when present (an empty object: TLS with the system's CAs). */
  readonly tls?: TlsSettings;
}

/** The Kafka identity variables every Kafka client of Toolgate reads (names without the prefix). */
export const KAFKA_SECURITY_VARIABLES = {
  KAFKA_SASL_MECHANISM: {
    key: 'kafkaSaslMechanism',
    kind: 'string',
    schema: { enum: [...SASL_MECHANISMS, NO_SASL] },
    description: `How this process authenticates to Kafka: ${SASL_MECHANISMS.join(', ')}, or \`${NO_SASL}\` for no SASL (with a client certificate, mTLS; without one an anonymous client, which is insecure and logged as a warning). Required: a process never connects anonymously unless told to.`,
  },
  KAFKA_USERNAME: {
    key: 'kafkaUsername',
    kind: 'string',
    schema: { minLength: 1, maxLength: 255, pattern: '^\\S+$' },
    description:
      "The SASL user name, the component's own Kafka principal (e.g. `toolgate-validate`).",
  },
  KAFKA_PASSWORD: {
    key: 'kafkaPassword',
    kind: 'string',
    secret: true,
    schema: { minLength: 1 },
    description: 'The SASL password. Prefer `KAFKA_PASSWORD_FILE`; give one of the two, not both.',
  },
  KAFKA_PASSWORD_FILE: {
    key: 'kafkaPasswordFile',
    kind: 'string',
    schema: { minLength: 1 },
    description: 'A file holding the SASL password (a trailing newline is ignored).',
  },
  KAFKA_TLS: {
    key: 'kafkaTls',
    kind: 'string',
    schema: { enum: ['on', 'off'] },
    description:
      'TLS to the brokers: `on` or `off`. Unset: on when a `KAFKA_TLS_*` file is given, else off. `on` without a CA file trusts the system CAs.',
  },
  KAFKA_TLS_CA_FILE: {
    key: 'kafkaTlsCaFile',
    kind: 'string',
    schema: { minLength: 1 },
    description: "PEM file of the CA(s) that signed the brokers' certificates.",
  },
  KAFKA_TLS_CERT_FILE: {
    key: 'kafkaTlsCertFile',
    kind: 'string',
    schema: { minLength: 1 },
    description: 'PEM file of the client certificate (mTLS); given with `KAFKA_TLS_KEY_FILE`.',
  },
  KAFKA_TLS_KEY_FILE: {
    key: 'kafkaTlsKeyFile',
    kind: 'string',
    schema: { minLength: 1 },
    description: "PEM file of the client certificate's private key; given with the certificate.",
  },
} as const satisfies Readonly<Record<string, VariableSpec>>;

/** The identity settings as a configuration holds them (before any file is read). */
export interface KafkaIdentitySettings {
  readonly kafkaSaslMechanism?: string;
  readonly kafkaUsername?: string;
  readonly kafkaPassword?: string;
  readonly kafkaPasswordFile?: string;
  readonly kafkaTls?: string;
  readonly kafkaTlsCaFile?: string;
  readonly kafkaTlsCertFile?: string;
  readonly kafkaTlsKeyFile?: string;
}

/** Reads a file as UTF-8; throws when it cannot. Injected by tests. */
export type ReadText = (file: string) => string;

const readText: ReadText = (file) => readFileSync(file, 'utf8');

/** What {@link resolveKafkaSecurity} made of the settings. */
export type KafkaSecurityOutcome =
  | { readonly ok: true; readonly security: KafkaSecurity; readonly anonymous: boolean }
  | { readonly ok: false; readonly problems: readonly string[] };

const VAR = (name: keyof typeof KAFKA_SECURITY_VARIABLES) => `TOOLGATE_${name}`;

/**
 * The Kafka security of `settings`, with the password and TLS files read; or every problem: a
 * mechanism without a user name or password, a password given twice, a user name or password
 * without a mechanism, a certificate without its key (or the other way), TLS files with TLS off,
 * a file that cannot be read. Problems name variables and files, never a secret.
 */
export function resolveKafkaSecurity(
  settings: KafkaIdentitySettings,
  read: ReadText = readText,
): KafkaSecurityOutcome {
  const problems: string[] = [];
  const file = (path: string | undefined, variable: string): string | undefined => {
    if (path === undefined) return undefined;
    try {
      return read(path);
    } catch (error) {
      const why = (error as { code?: unknown }).code;
      problems.push(
        `${variable} names ${path}, which cannot be read${typeof why === 'string' ? ` (${why})` : ''}`,
      );
      return undefined;
    }
  };
  const sasl = saslOf(settings, problems, file);
  const tls = tlsOf(settings, problems, file);
  if (problems.length > 0) return { ok: false, problems };
  const security: KafkaSecurity = {
    ...(sasl === undefined ? {} : { sasl }),
    ...(tls === undefined ? {} : { tls }),
  };
  return { ok: true, security, anonymous: sasl === undefined && tls?.cert === undefined };
}

type FileReader = (path: string | undefined, variable: string) => string | undefined;

function saslOf(
  s: KafkaIdentitySettings,
  problems: string[],
  file: FileReader,
): SaslCredentials | undefined {
  const mechanism = s.kafkaSaslMechanism;
  if (mechanism === undefined) {
    problems.push(
      `${VAR('KAFKA_SASL_MECHANISM')} is required: ${SASL_MECHANISMS.join(', ')}, or ${NO_SASL} (mTLS, or an anonymous client, which is insecure)`,
    );
    return undefined;
  }
  if (s.kafkaPassword !== undefined && s.kafkaPasswordFile !== undefined) {
    problems.push(`give ${VAR('KAFKA_PASSWORD')} or ${VAR('KAFKA_PASSWORD_FILE')}, not both`);
  }
  if (mechanism === NO_SASL) {
    for (const [given, name] of [
      [s.kafkaUsername, VAR('KAFKA_USERNAME')],
      [s.kafkaPassword, VAR('KAFKA_PASSWORD')],
      [s.kafkaPasswordFile, VAR('KAFKA_PASSWORD_FILE')],
    ] as const) {
      if (given !== undefined)
        problems.push(`${name} is set, but ${VAR('KAFKA_SASL_MECHANISM')} is ${NO_SASL}`);
    }
    return undefined;
  }
  if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) return undefined;
  if (s.kafkaUsername === undefined) {
    problems.push(`${VAR('KAFKA_USERNAME')} is required with ${mechanism}`);
  }
  const password = s.kafkaPassword ?? file(s.kafkaPasswordFile, VAR('KAFKA_PASSWORD_FILE'));
  if (s.kafkaPassword === undefined && s.kafkaPasswordFile === undefined) {
    problems.push(
      `${VAR('KAFKA_PASSWORD')} or ${VAR('KAFKA_PASSWORD_FILE')} is required with ${mechanism}`,
    );
  }
  const trimmed = password?.replace(/\r?\n$/, '');
  if (trimmed === '' && s.kafkaPasswordFile !== undefined) {
    problems.push(`${VAR('KAFKA_PASSWORD_FILE')} names ${s.kafkaPasswordFile}, which is empty`);
  }
  if (s.kafkaUsername === undefined || trimmed === undefined || trimmed === '') return undefined;
  return { mechanism: mechanism as SaslMechanism, username: s.kafkaUsername, password: trimmed };
}

function tlsOf(
  s: KafkaIdentitySettings,
  problems: string[],
  file: FileReader,
): TlsSettings | undefined {
  const files = [s.kafkaTlsCaFile, s.kafkaTlsCertFile, s.kafkaTlsKeyFile];
  const anyFile = files.some((f) => f !== undefined);
  if (s.kafkaTls === 'off') {
    if (anyFile) {
      problems.push(`${VAR('KAFKA_TLS')} is off, but a ${VAR('KAFKA_TLS')}_*_FILE is set`);
    }
    return undefined;
  }
  if (s.kafkaTls !== 'on' && !anyFile) return undefined;
  if ((s.kafkaTlsCertFile === undefined) !== (s.kafkaTlsKeyFile === undefined)) {
    problems.push(
      `${VAR('KAFKA_TLS_CERT_FILE')} and ${VAR('KAFKA_TLS_KEY_FILE')} go together (mTLS): give both or neither`,
    );
  }
  const ca = file(s.kafkaTlsCaFile, VAR('KAFKA_TLS_CA_FILE'));
  const cert = file(s.kafkaTlsCertFile, VAR('KAFKA_TLS_CERT_FILE'));
  const key = file(s.kafkaTlsKeyFile, VAR('KAFKA_TLS_KEY_FILE'));
  return {
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
  };
}

/**
 * The security of a loaded configuration, files read again now (so a rotated password file is
 * read at each start).
 *
 * @throws Error naming the problems, when a file stopped being readable since the configuration
 *   was checked.
 */
export function kafkaSecurityOf(settings: KafkaIdentitySettings, read?: ReadText): KafkaSecurity {
  const outcome = resolveKafkaSecurity(settings, read);
  if (!outcome.ok) throw new Error(`Kafka security: ${outcome.problems.join('; ')}`);
  return outcome.security;
}

/** One line for the start-up log: mechanism, user and TLS, never a secret. */
export function describeKafkaSecurity(security: KafkaSecurity): string {
  const who =
    security.sasl === undefined
      ? security.tls?.cert === undefined
        ? 'anonymous'
        : 'client certificate'
      : `${security.sasl.mechanism} as ${security.sasl.username}`;
  const tls =
    security.tls === undefined
      ? 'no TLS'
      : `TLS${security.tls.ca === undefined ? '' : ' (CA file)'}${security.tls.cert === undefined ? '' : ' with a client certificate'}`;
  return `${who}, ${tls}`;
}

/** The identity settings named by the `TOOLGATE_KAFKA_*` variables of `env` (unset or empty: absent). */
export function kafkaIdentityFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): KafkaIdentitySettings {
  const settings: Record<string, string> = {};
  for (const [name, spec] of Object.entries(KAFKA_SECURITY_VARIABLES)) {
    const value = env[`TOOLGATE_${name}`];
    if (value !== undefined && value !== '') settings[spec.key] = value;
  }
  return settings;
}
