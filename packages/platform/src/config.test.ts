import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@toolgate/shared';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CONFIG_VARIABLES } from './config.js';
import {
  describeConfig,
  httpPortFor,
  loadConfig,
  loadVariables,
  renderConfigurationDoc,
  unknownVariables,
  type Config,
  type ConfigOf,
} from './config.js';
import { fetchOptions } from './config.js';
import { generateObservationKeys } from './gate-keys.js';

const KEY = 'k'.repeat(32);
const OBSERVATION_KEY = generateObservationKeys().privateKey;
/** The least a stage's environment holds: its keys and its Kafka identity. */
const MINIMAL = {
  TOOLGATE_INTEGRITY_KEY: KEY,
  TOOLGATE_OBSERVATION_KEY: OBSERVATION_KEY,
  TOOLGATE_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
  TOOLGATE_KAFKA_USERNAME: 'toolgate-validate',
  TOOLGATE_KAFKA_PASSWORD: 'kafka-password',
} as const;
const docPath = new URL('../../../docs/configuration.md', import.meta.url);

/** The problems of a configuration that must not load. */
function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration loaded');
}

describe('loadConfig', () => {
  it('fills every default when only the integrity key is given', () => {
    const config = loadConfig({ ...MINIMAL });
    expect(config).toMatchObject({
      kafkaBrokers: ['127.0.0.1:9092'],
      schemaRegistryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
      redisUrl: 'redis://127.0.0.1:6379',
      topicPrefix: '',
      redisPrefix: 'toolgate:',
      groupPrefix: '',
      integrityKey: KEY,
      httpHost: '127.0.0.1',
      approvalHost: '127.0.0.1',
      approvalPort: 9110,
      executeInputs: 'both',
      fetchMaxWaitMs: 25,
      fetchMinBytes: 32_768,
      fetchBusyMinBytes: 2048,
      logLevel: 'info',
      shutdownTimeoutMs: 10_000,
    });
    expect(config.instanceId).toMatch(/^[A-Za-z0-9._-]+-\d+$/);
    expect(config.httpPort).toBeUndefined();
    expect('deploymentFile' in config).toBe(false);
  });

  it('returns a frozen configuration, lists included', () => {
    const config = loadConfig({ ...MINIMAL });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.kafkaBrokers)).toBe(true);
  });

  it('coerces integers and splits comma-separated lists', () => {
    const config = loadConfig({
      ...MINIMAL,
      TOOLGATE_HTTP_PORT: '0',
      TOOLGATE_SHUTDOWN_TIMEOUT_MS: '2500',
      TOOLGATE_KAFKA_BROKERS: 'a:9092, b:9093 ,',
    });
    expect(config.httpPort).toBe(0);
    expect(config.shutdownTimeoutMs).toBe(2500);
    expect(config.kafkaBrokers).toEqual(['a:9092', 'b:9093']);
  });

  it("reads the consumer session timeout, 30 s unless set, within the broker's default bounds", () => {
    expect(loadConfig({ ...MINIMAL }).sessionTimeoutMs).toBe(30_000);
    const set = loadConfig({ ...MINIMAL, TOOLGATE_SESSION_TIMEOUT_MS: '10000' });
    expect(set.sessionTimeoutMs).toBe(10_000);
    expect(problemsOf({ ...MINIMAL, TOOLGATE_SESSION_TIMEOUT_MS: '1000' })).toEqual([
      'TOOLGATE_SESSION_TIMEOUT_MS must be >= 6000',
    ]);
  });

  it('treats an empty variable as unset', () => {
    const config = loadConfig({ ...MINIMAL, TOOLGATE_REDIS_PREFIX: '' });
    expect(config.redisPrefix).toBe('toolgate:');
    expect(problemsOf({ ...MINIMAL, TOOLGATE_INTEGRITY_KEY: '' })).toEqual([
      'TOOLGATE_INTEGRITY_KEY is required',
    ]);
  });

  it('takes only decimal digits for an integer', () => {
    for (const text of ['0x50', '1e4', ' 8080', '80.0', '0b1']) {
      expect(problemsOf({ ...MINIMAL, TOOLGATE_HTTP_PORT: text }), text).toEqual([
        'TOOLGATE_HTTP_PORT must be integer',
      ]);
    }
    expect(loadConfig({ ...MINIMAL, TOOLGATE_HTTP_PORT: '8080' }).httpPort).toBe(8080);
  });

  it('refuses a broker whose port Kafka could not listen on', () => {
    expect(problemsOf({ ...MINIMAL, TOOLGATE_KAFKA_BROKERS: 'a:99999,b:0,c:1' })).toEqual([
      'TOOLGATE_KAFKA_BROKERS item 1 must be host:port, with a port from 1 to 65535',
      'TOOLGATE_KAFKA_BROKERS item 2 must be host:port, with a port from 1 to 65535',
    ]);
  });

  it('reports every problem at once, each naming its variable', () => {
    const problems = problemsOf({
      TOOLGATE_HTTP_PORT: '70000',
      TOOLGATE_KAFKA_BROKERS: 'ok:9092,no-port',
      TOOLGATE_LOG_LEVEL: 'loud',
      TOOLGATE_SHUTDOWN_TIMEOUT_MS: '10s',
      TOOLGATE_REDIS_URL: 'http://redis',
      TOOLGATE_REDIS_PREFIX: 'tg{x}:',
    });
    expect(problems).toEqual([
      'TOOLGATE_INTEGRITY_KEY is required',
      'TOOLGATE_OBSERVATION_KEY is required',
      'TOOLGATE_KAFKA_BROKERS item 2 must be host:port, with a port from 1 to 65535',
      'TOOLGATE_REDIS_URL must match pattern "^rediss?://\\S+$"',
      'TOOLGATE_REDIS_PREFIX must match pattern "^[^{}\\s]*$"',
      'TOOLGATE_HTTP_PORT must be <= 65535',
      'TOOLGATE_LOG_LEVEL must be equal to one of the allowed values (fatal, error, warn, info, debug, trace, silent)',
      'TOOLGATE_SHUTDOWN_TIMEOUT_MS must be integer',
      'TOOLGATE_KAFKA_SASL_MECHANISM is required: SCRAM-SHA-512, SCRAM-SHA-256, PLAIN, or none (mTLS, or an anonymous client, which is insecure)',
    ]);
  });

  it('takes what the execute stage consumes, and refuses anything but both, cleared or results', () => {
    const of = (inputs: string) =>
      loadConfig({ ...MINIMAL, TOOLGATE_EXECUTE_INPUTS: inputs }).executeInputs;
    expect(['both', 'cleared', 'results'].map(of)).toEqual(['both', 'cleared', 'results']);
    expect(problemsOf({ ...MINIMAL, TOOLGATE_EXECUTE_INPUTS: 'commands' })).toEqual([
      'TOOLGATE_EXECUTE_INPUTS must be equal to one of the allowed values (both, cleared, results)',
    ]);
  });

  it('takes the stage loop fetch settings, within bounds', () => {
    const config = loadConfig({
      ...MINIMAL,
      TOOLGATE_FETCH_MAX_WAIT_MS: '1',
      TOOLGATE_FETCH_MIN_BYTES: '1',
      TOOLGATE_FETCH_BUSY_MIN_BYTES: '1048576',
    });
    expect(fetchOptions(config)).toEqual({
      maxWaitTimeMs: 1,
      fetchMinBytes: 1,
      fetchBusyMinBytes: 1_048_576,
    });
    expect(
      problemsOf({
        ...MINIMAL,
        TOOLGATE_FETCH_MAX_WAIT_MS: '-1',
        TOOLGATE_FETCH_MIN_BYTES: '0',
        TOOLGATE_FETCH_BUSY_MIN_BYTES: '2KiB',
      }),
    ).toEqual([
      'TOOLGATE_FETCH_MAX_WAIT_MS must be >= 1',
      'TOOLGATE_FETCH_MIN_BYTES must be >= 1',
      'TOOLGATE_FETCH_BUSY_MIN_BYTES must be integer',
    ]);
    expect(problemsOf({ ...MINIMAL, TOOLGATE_FETCH_MAX_WAIT_MS: '60000' })).toEqual([
      'TOOLGATE_FETCH_MAX_WAIT_MS must be <= 10000',
    ]);
  });

  it('refuses a fetch wait of 0 ms, which would make a stage with every partition paused spin', () => {
    expect(problemsOf({ ...MINIMAL, TOOLGATE_FETCH_MAX_WAIT_MS: '0' })).toEqual([
      'TOOLGATE_FETCH_MAX_WAIT_MS must be >= 1',
    ]);
  });

  it('says the integrity key is too short without quoting it', () => {
    const secret = 'short-but-secret-value';
    const error = (() => {
      try {
        return loadConfig({ ...MINIMAL, TOOLGATE_INTEGRITY_KEY: secret });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'TOOLGATE_INTEGRITY_KEY must be at least 32 bytes',
    ]);
    expect(JSON.stringify(error) + String(error)).not.toContain(secret);
  });

  it('counts the integrity key in UTF-8 bytes, not characters', () => {
    expect(
      loadConfig({ ...MINIMAL, TOOLGATE_INTEGRITY_KEY: 'é'.repeat(16) }).integrityKey,
    ).toHaveLength(16);
    expect(problemsOf({ ...MINIMAL, TOOLGATE_INTEGRITY_KEY: 'k'.repeat(31) })).toHaveLength(1);
  });

  it("adds a stage's own variables, typed, with the same checks", () => {
    const extension = {
      SWEEP_INTERVAL_MS: {
        key: 'sweepIntervalMs',
        kind: 'integer',
        default: 1000,
        schema: { minimum: 10 },
        description: 'How often the sweeper runs, in ms.',
      },
      APPROVERS: { key: 'approvers', kind: 'list', description: 'Extra approvers.' },
    } as const;
    const config = loadConfig({ ...MINIMAL, TOOLGATE_APPROVERS: 'ann,bob' }, extension);
    expectTypeOf(config.sweepIntervalMs).toEqualTypeOf<number>();
    expectTypeOf(config.approvers).toEqualTypeOf<readonly string[] | undefined>();
    expect(config).toMatchObject({ sweepIntervalMs: 1000, approvers: ['ann', 'bob'] });
    expect(() => loadConfig({ ...MINIMAL, TOOLGATE_SWEEP_INTERVAL_MS: '1' }, extension)).toThrow(
      'TOOLGATE_SWEEP_INTERVAL_MS must be >= 10',
    );
  });

  it('refuses an extension that redefines a shared variable', () => {
    const clash = { REDIS_URL: { key: 'other', kind: 'string', description: 'x' } } as const;
    expect(() => loadConfig({ ...MINIMAL }, clash)).toThrow(TypeError);
  });

  it('declares the Config type as the variable table yields it', () => {
    expectTypeOf<ConfigOf<typeof CONFIG_VARIABLES>>().toExtend<Config>();
    expectTypeOf<Config>().toExtend<ConfigOf<typeof CONFIG_VARIABLES>>();
    expectTypeOf<keyof Config>().toEqualTypeOf<keyof ConfigOf<typeof CONFIG_VARIABLES>>();
  });
});

describe('loadVariables', () => {
  const table = {
    REDIS_URL: {
      key: 'redisUrl',
      kind: 'string',
      default: 'redis://127.0.0.1:6379',
      schema: { pattern: '^rediss?://\\S+$' },
      description: 'Redis.',
    },
    WORKER_NAME: {
      key: 'workerName',
      kind: 'string',
      schema: { pattern: '^[a-z]+$' },
      description: 'A name.',
    },
  } as const;

  it('reads only the variables of its table, so the gate-wide required ones are not needed', () => {
    const config = loadVariables({ TOOLGATE_WORKER_NAME: 'billing' }, table);
    expect(config).toEqual({ redisUrl: 'redis://127.0.0.1:6379', workerName: 'billing' });
    expect(Object.isFrozen(config)).toBe(true);
    expectTypeOf(config.workerName).toEqualTypeOf<string | undefined>();
  });

  it('reports every problem of its table at once', () => {
    let problems: readonly string[] = [];
    try {
      loadVariables({ TOOLGATE_REDIS_URL: 'http://x', TOOLGATE_WORKER_NAME: 'B!' }, table);
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^TOOLGATE_REDIS_URL must match pattern/);
    expect(problems[1]).toMatch(/^TOOLGATE_WORKER_NAME must match pattern/);
  });
});

describe('httpPortFor', () => {
  it("uses the stage's default port unless TOOLGATE_HTTP_PORT is set", () => {
    expect(httpPortFor(loadConfig({ ...MINIMAL }), 'confirm')).toBe(9103);
    const set = loadConfig({ ...MINIMAL, TOOLGATE_HTTP_PORT: '8000' });
    expect(httpPortFor(set, 'confirm')).toBe(8000);
  });
});

describe('unknownVariables', () => {
  it('names TOOLGATE_ variables nobody reads, but not those of the deployment', () => {
    const env = {
      TOOLGATE_REDIS_URLL: 'x',
      TOOLGATE_SESSION_SECRET: 's',
      TOOLGATE_REDIS_URL: 'redis://x:1',
      PATH: '/bin',
    };
    expect(unknownVariables(env)).toEqual(['TOOLGATE_REDIS_URLL']);
  });
});

describe("the approval API's TLS files", () => {
  it('go together, must be readable, and must be a certificate and its own key', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-config-'));
    try {
      const junk = path.join(dir, 'junk.pem');
      writeFileSync(junk, 'not a certificate\n');
      expect(problemsOf({ ...MINIMAL, TOOLGATE_APPROVAL_TLS_KEY_FILE: junk })).toEqual([
        'TOOLGATE_APPROVAL_TLS_CERT_FILE and TOOLGATE_APPROVAL_TLS_KEY_FILE go together (HTTPS for the approval API): give both or neither',
      ]);
      const missing = path.join(dir, 'missing.pem');
      expect(
        problemsOf({
          ...MINIMAL,
          TOOLGATE_APPROVAL_TLS_CERT_FILE: missing,
          TOOLGATE_APPROVAL_TLS_KEY_FILE: junk,
        }),
      ).toEqual([
        `TOOLGATE_APPROVAL_TLS_CERT_FILE names ${missing}, which cannot be read (ENOENT)`,
      ]);
      const [problem, ...rest] = problemsOf({
        ...MINIMAL,
        TOOLGATE_APPROVAL_TLS_CERT_FILE: junk,
        TOOLGATE_APPROVAL_TLS_KEY_FILE: junk,
      });
      expect(rest).toEqual([]);
      expect(problem).toMatch(
        /^TOOLGATE_APPROVAL_TLS_CERT_FILE and TOOLGATE_APPROVAL_TLS_KEY_FILE are not a PEM certificate and its own PEM private key \(.+\)$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('describeConfig', () => {
  it('redacts the secrets for the start-up log line', () => {
    const config = loadConfig({ ...MINIMAL });
    const described = describeConfig(config);
    expect(described['integrityKey']).toBe('[redacted]');
    expect(described['redisPrefix']).toBe('toolgate:');
    expect(JSON.stringify(described)).not.toContain(KEY);
  });
});

describe('docs/configuration.md', () => {
  it('matches the variable table (run `npx tsx scripts/write-configuration-doc.ts`)', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(renderConfigurationDoc());
  });
});
