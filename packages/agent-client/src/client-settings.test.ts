import { generateObservationKeys } from '@toolgate/platform/gate-keys';
import type { KafkaSecurity } from '@toolgate/platform/kafka';
import { ConfigError } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { clientSettings, type AgentClientOptions } from './client-settings.js';

const PUBLIC_KEY = generateObservationKeys().publicKey;
const KAFKA: KafkaSecurity = {
  sasl: { mechanism: 'SCRAM-SHA-512', username: 'agent-acme', password: 'agent-password' },
};

/** What every agent says of itself: its tenant, its Kafka identity, the gate's public key. */
const mine = (options: Omit<AgentClientOptions, 'tenant' | 'kafka' | 'observationKeys'>) =>
  clientSettings({ tenant: 'acme', kafka: KAFKA, observationKeys: [PUBLIC_KEY], ...options });

describe('clientSettings', () => {
  it('takes the gate defaults when nothing else is said', () => {
    expect(mine({ session: 'tok' })).toEqual({
      brokers: ['127.0.0.1:9092'],
      tenant: 'acme',
      kafka: KAFKA,
      observationKeys: [PUBLIC_KEY],
      registryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
      topicPrefix: '',
      groupPrefix: '',
      session: 'tok',
      plainJson: false,
      bufferLimit: 1000,
      joinTimeoutMs: 30_000,
    });
  });

  it('reads its tenant, identity and the gate public keys from the environment it is given', () => {
    const env = {
      TOOLGATE_TENANT: 'globex',
      TOOLGATE_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256',
      TOOLGATE_KAFKA_USERNAME: 'agent-globex',
      TOOLGATE_KAFKA_PASSWORD: 'pw',
      TOOLGATE_OBSERVATION_PUBLIC_KEYS: `${PUBLIC_KEY}, ${PUBLIC_KEY}`,
    };
    expect(clientSettings({ session: 'tok', env })).toMatchObject({
      tenant: 'globex',
      kafka: { sasl: { mechanism: 'SCRAM-SHA-256', username: 'agent-globex', password: 'pw' } },
      observationKeys: [PUBLIC_KEY, PUBLIC_KEY],
    });
  });

  it('refuses to start without a tenant, a Kafka identity or a key to verify the gate with', () => {
    let error: unknown;
    try {
      clientSettings({ session: 'tok', env: { TOOLGATE_KAFKA_PASSWORD: 'do-not-echo' } });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual([
      'tenant (or TOOLGATE_TENANT) must name the tenant: 1-64 of A-Z a-z 0-9 _ -',
      'observationKeys: at least one observation public key is needed',
      'TOOLGATE_KAFKA_SASL_MECHANISM is required: SCRAM-SHA-512, SCRAM-SHA-256, PLAIN, or none (mTLS, or an anonymous client, which is insecure)',
    ]);
    expect(String(error)).not.toContain('do-not-echo');
  });

  it('reads the TOOLGATE_ variables of the environment it is given, and given options win', () => {
    const env = {
      TOOLGATE_KAFKA_BROKERS: 'k1:9092, k2:9092',
      TOOLGATE_SCHEMA_REGISTRY_URL: 'https://registry.internal/apis/ccompat/v7',
      TOOLGATE_TOPIC_PREFIX: 'staging.',
      TOOLGATE_GROUP_PREFIX: '',
    };
    expect(mine({ session: 'tok', env })).toMatchObject({
      brokers: ['k1:9092', 'k2:9092'],
      registryUrl: 'https://registry.internal/apis/ccompat/v7',
      topicPrefix: 'staging.',
      groupPrefix: '',
    });
    expect(mine({ session: 'tok', env, brokers: ['k3:9093'] }).brokers).toEqual(['k3:9093']);
  });

  it('names every problem at once, and never the session token', () => {
    const error = (() => {
      try {
        mine({
          session: '',
          brokers: ['kafka'],
          registryUrl: 'registry:8081',
          topicPrefix: 'a b',
          bufferLimit: 0,
          joinTimeoutMs: 1.5,
        });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'broker "kafka" is not host:port (port 1–65535)',
      'registryUrl must be an http(s) URL',
      'topicPrefix may hold only A-Z a-z 0-9 . _ -',
      'session must be a non-empty token or a function that returns one',
      'bufferLimit must be a positive integer',
      'joinTimeoutMs must be a positive integer',
    ]);
  });

  it('refuses a join timeout longer than Node timers honour, which would give up at once', () => {
    expect(() => mine({ session: 'tok', joinTimeoutMs: 2 ** 31 })).toThrow(
      /^invalid agent client options: joinTimeoutMs must be at most 2147483647$/,
    );
    expect(mine({ session: 'tok', joinTimeoutMs: 2 ** 31 - 1 }).joinTimeoutMs).toBe(2 ** 31 - 1);
  });

  it('accepts a function as the session source', () => {
    const fresh = () => Promise.resolve('tok');
    expect(mine({ session: fresh }).session).toBe(fresh);
  });

  it('refuses an empty broker list without echoing the session token', () => {
    expect(() => mine({ session: 'secret-token', brokers: [] })).toThrow(
      /^invalid agent client options: brokers must name at least one broker$/,
    );
  });
});
