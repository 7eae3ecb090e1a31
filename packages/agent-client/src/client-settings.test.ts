import { ConfigError } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { clientSettings } from './client-settings.js';

describe('clientSettings', () => {
  it('takes the gate defaults when nothing else is said', () => {
    expect(clientSettings({ session: 'tok' })).toEqual({
      brokers: ['127.0.0.1:9092'],
      registryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
      topicPrefix: '',
      groupPrefix: '',
      session: 'tok',
      plainJson: false,
      bufferLimit: 1000,
      joinTimeoutMs: 30_000,
    });
  });

  it('reads the TOOLGATE_ variables of the environment it is given, and given options win', () => {
    const env = {
      TOOLGATE_KAFKA_BROKERS: 'k1:9092, k2:9092',
      TOOLGATE_SCHEMA_REGISTRY_URL: 'https://registry.internal/apis/ccompat/v7',
      TOOLGATE_TOPIC_PREFIX: 'staging.',
      TOOLGATE_GROUP_PREFIX: '',
    };
    expect(clientSettings({ session: 'tok', env })).toMatchObject({
      brokers: ['k1:9092', 'k2:9092'],
      registryUrl: 'https://registry.internal/apis/ccompat/v7',
      topicPrefix: 'staging.',
      groupPrefix: '',
    });
    expect(clientSettings({ session: 'tok', env, brokers: ['k3:9093'] }).brokers).toEqual([
      'k3:9093',
    ]);
  });

  it('names every problem at once, and never the session token', () => {
    const error = (() => {
      try {
        clientSettings({
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
    expect(() => clientSettings({ session: 'tok', joinTimeoutMs: 2 ** 31 })).toThrow(
      /^invalid agent client options: joinTimeoutMs must be at most 2147483647$/,
    );
    expect(clientSettings({ session: 'tok', joinTimeoutMs: 2 ** 31 - 1 }).joinTimeoutMs).toBe(
      2 ** 31 - 1,
    );
  });

  it('accepts a function as the session source', () => {
    const fresh = () => Promise.resolve('tok');
    expect(clientSettings({ session: fresh }).session).toBe(fresh);
  });

  it('refuses an empty broker list without echoing the session token', () => {
    expect(() => clientSettings({ session: 'secret-token', brokers: [] })).toThrow(
      /^invalid agent client options: brokers must name at least one broker$/,
    );
  });
});
