import { ConfigError } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { generateObservationKeys } from '../gate-keys.js';
import {
  describeKafkaSecurity,
  kafkaIdentityFromEnv,
  resolveKafkaSecurity,
  type ReadText,
} from './kafka-security.js';

const FILES: Readonly<Record<string, string>> = {
  '/run/secrets/kafka': 's3cret-from-file\n',
  '/etc/kafka/ca.pem': 'CA PEM',
  '/etc/kafka/client.pem': 'CERT PEM',
  '/etc/kafka/client.key': 'KEY PEM',
  '/run/secrets/empty': '\n',
};

const read: ReadText = (file) => {
  const text = FILES[file];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
  return text;
};

const problemsOf = (settings: Parameters<typeof resolveKafkaSecurity>[0]) => {
  const outcome = resolveKafkaSecurity(settings, read);
  return outcome.ok ? [] : outcome.problems;
};

describe('resolveKafkaSecurity', () => {
  it('reads a SCRAM identity, the password from its file without the newline', () => {
    const outcome = resolveKafkaSecurity(
      {
        kafkaSaslMechanism: 'SCRAM-SHA-512',
        kafkaUsername: 'toolgate-validate',
        kafkaPasswordFile: '/run/secrets/kafka',
      },
      read,
    );
    expect(outcome).toEqual({
      ok: true,
      anonymous: false,
      security: {
        sasl: {
          mechanism: 'SCRAM-SHA-512',
          username: 'toolgate-validate',
          password: 's3cret-from-file',
        },
      },
    });
  });

  it('reads TLS with a CA and a client certificate (mTLS), with no SASL', () => {
    const outcome = resolveKafkaSecurity(
      {
        kafkaSaslMechanism: 'none',
        kafkaTlsCaFile: '/etc/kafka/ca.pem',
        kafkaTlsCertFile: '/etc/kafka/client.pem',
        kafkaTlsKeyFile: '/etc/kafka/client.key',
      },
      read,
    );
    expect(outcome).toEqual({
      ok: true,
      anonymous: false,
      security: { tls: { ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' } },
    });
  });

  it('turns TLS on with the system CAs when asked, and says an anonymous client is one', () => {
    const outcome = resolveKafkaSecurity({ kafkaSaslMechanism: 'none', kafkaTls: 'on' }, read);
    expect(outcome).toEqual({ ok: true, anonymous: true, security: { tls: {} } });
  });

  it('requires the mechanism: no process connects anonymously unless told to', () => {
    expect(problemsOf({})).toEqual([
      'TOOLGATE_KAFKA_SASL_MECHANISM is required: SCRAM-SHA-512, SCRAM-SHA-256, PLAIN, or none (mTLS, or an anonymous client, which is insecure)',
    ]);
  });

  it('names every problem of a half-given combination at once', () => {
    expect(
      problemsOf({
        kafkaSaslMechanism: 'SCRAM-SHA-256',
        kafkaPassword: 'inline',
        kafkaPasswordFile: '/run/secrets/kafka',
        kafkaTlsCertFile: '/etc/kafka/client.pem',
        kafkaTlsCaFile: '/etc/kafka/missing-ca.pem',
      }),
    ).toEqual([
      'give TOOLGATE_KAFKA_PASSWORD or TOOLGATE_KAFKA_PASSWORD_FILE, not both',
      'TOOLGATE_KAFKA_USERNAME is required with SCRAM-SHA-256',
      'TOOLGATE_KAFKA_TLS_CERT_FILE and TOOLGATE_KAFKA_TLS_KEY_FILE go together (mTLS): give both or neither',
      'TOOLGATE_KAFKA_TLS_CA_FILE names /etc/kafka/missing-ca.pem, which cannot be read (ENOENT)',
    ]);
  });

  it('refuses a user name or password given without SASL, an empty password file, TLS files with TLS off', () => {
    expect(problemsOf({ kafkaSaslMechanism: 'none', kafkaUsername: 'u' })).toEqual([
      'TOOLGATE_KAFKA_USERNAME is set, but TOOLGATE_KAFKA_SASL_MECHANISM is none',
    ]);
    expect(
      problemsOf({
        kafkaSaslMechanism: 'PLAIN',
        kafkaUsername: 'u',
        kafkaPasswordFile: '/run/secrets/empty',
      }),
    ).toEqual(['TOOLGATE_KAFKA_PASSWORD_FILE names /run/secrets/empty, which is empty']);
    expect(
      problemsOf({
        kafkaSaslMechanism: 'none',
        kafkaTls: 'off',
        kafkaTlsCaFile: '/etc/kafka/ca.pem',
      }),
    ).toEqual(['TOOLGATE_KAFKA_TLS is off, but a TOOLGATE_KAFKA_TLS_*_FILE is set']);
  });

  it('describes an identity for the log without its secrets', () => {
    const line = describeKafkaSecurity({
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'agent-acme', password: 'hunter2' },
      tls: { ca: 'CA PEM', cert: 'CERT', key: 'PRIVATE KEY' },
    });
    expect(line).toBe('SCRAM-SHA-512 as agent-acme, TLS (CA file) with a client certificate');
    expect(line).not.toContain('hunter2');
    expect(line).not.toContain('PRIVATE KEY');
  });
});

describe('loadConfig: the Kafka identity', () => {
  const base = {
    TOOLGATE_INTEGRITY_KEY: 'k'.repeat(32),
    TOOLGATE_OBSERVATION_KEY: generateObservationKeys().privateKey,
  };

  it('stops at start with every problem named and never the password', () => {
    let error: unknown;
    try {
      loadConfig({
        ...base,
        TOOLGATE_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        TOOLGATE_KAFKA_PASSWORD: 'do-not-print-me',
        TOOLGATE_KAFKA_TLS_KEY_FILE: '/nowhere/client.key',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      'TOOLGATE_KAFKA_USERNAME is required with SCRAM-SHA-512',
      'TOOLGATE_KAFKA_TLS_CERT_FILE and TOOLGATE_KAFKA_TLS_KEY_FILE go together (mTLS): give both or neither',
      'TOOLGATE_KAFKA_TLS_KEY_FILE names /nowhere/client.key, which cannot be read (ENOENT)',
    ]);
    expect(`${String(error)} ${JSON.stringify(problems)}`).not.toContain('do-not-print-me');
  });

  it('refuses a mechanism Kafka clients do not speak', () => {
    expect(() => loadConfig({ ...base, TOOLGATE_KAFKA_SASL_MECHANISM: 'GSSAPI' })).toThrow(
      /TOOLGATE_KAFKA_SASL_MECHANISM must be equal to one of the allowed values/,
    );
  });

  it('reads the identity variables of an environment as settings', () => {
    expect(
      kafkaIdentityFromEnv({
        TOOLGATE_KAFKA_SASL_MECHANISM: 'PLAIN',
        TOOLGATE_KAFKA_USERNAME: 'agent-acme',
        TOOLGATE_KAFKA_PASSWORD: '',
        TOOLGATE_OTHER: 'x',
      }),
    ).toEqual({ kafkaSaslMechanism: 'PLAIN', kafkaUsername: 'agent-acme' });
  });
});
