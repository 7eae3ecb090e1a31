import { Fault } from '@toolgate/platform';
import { describe, expect, it } from 'vitest';
import { CliError, EXIT } from './cli-error.js';
import { cliErrorOf, kafkaRefusal } from './fault-exit.js';

const unknownTopic = () => {
  const protocol = Object.assign(new Error('This server does not host this topic-partition'), {
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
  });
  const retries = Object.assign(new Error(protocol.message), { originalError: protocol });
  return new Fault('kafka_unavailable', 'Kafka unavailable', { cause: retries });
};

/** A fault as the bus reports Kafka's refusal: a protocol error of `type` as its cause. */
const refused = (type: string) =>
  new Fault('kafka_error', `Kafka refused to describe ACLs: ${type}`, {
    cause: Object.assign(new Error('Cluster authorization failed'), {
      name: 'KafkaJSProtocolError',
      type,
    }),
  });

describe('cliErrorOf', () => {
  it('reports a topic Kafka does not know as not found, naming it', () => {
    const error = cliErrorOf(unknownTopic(), 'tail', 'x.toolgate.audit') as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(EXIT.notFound);
    expect(error.message).toMatch(/topic x\.toolgate\.audit does not exist/);
  });

  it('reports unreachable infrastructure as unavailable and other faults as failed', () => {
    const down = new Fault('kafka_unavailable', 'no broker');
    expect(cliErrorOf(down, 'stats', 'a')).toMatchObject({ exitCode: EXIT.unavailable });
    expect(cliErrorOf(unknownTopic(), 'stats')).toMatchObject({ exitCode: EXIT.unavailable });
    const other = new Fault('kafka_error', 'record too large');
    expect(cliErrorOf(other, 'stats')).toMatchObject({
      exitCode: EXIT.failed,
      message: 'stats: record too large (kafka_error)',
    });
  });

  it('says a topic the identity may not see may also be missing', () => {
    const error = cliErrorOf(refused('TOPIC_AUTHORIZATION_FAILED'), 'tail x', 'p.toolgate.audit');
    expect(error).toMatchObject({
      exitCode: EXIT.denied,
      message: expect.stringContaining(
        'it may not read p.toolgate.audit, or the topic does not exist',
      ) as string,
    });
  });

  it('reports Kafka refusing the identity as not allowed, in one line naming what refused', () => {
    const error = cliErrorOf(refused('GROUP_AUTHORIZATION_FAILED'), 'tail t.toolgate.audit', 'a');
    expect(error).toMatchObject({
      exitCode: EXIT.denied,
      message: expect.stringMatching(
        /^tail t\.toolgate\.audit: Kafka refused this identity \(GROUP_AUTHORIZATION_FAILED\): check TOOLGATE_KAFKA_USERNAME[^\n]+$/,
      ) as string,
    });
  });

  it('leaves errors that are not faults alone', () => {
    const plain = new Error('bug');
    expect(cliErrorOf(plain, 'stats')).toBe(plain);
  });
});

describe('kafkaRefusal', () => {
  it('finds an authorization failure or a failed SASL login anywhere in the cause chain', () => {
    expect(kafkaRefusal(refused('CLUSTER_AUTHORIZATION_FAILED'))).toBe(
      'CLUSTER_AUTHORIZATION_FAILED',
    );
    expect(kafkaRefusal(refused('GROUP_AUTHORIZATION_FAILED'))).toBe('GROUP_AUTHORIZATION_FAILED');
    const login = Object.assign(new Error('SASL SCRAM SHA512 authentication failed'), {
      name: 'KafkaJSSASLAuthenticationError',
    });
    const wrapped = new Fault('kafka_error', 'Kafka refused', { cause: login });
    expect(kafkaRefusal(wrapped)).toBe('SASL_AUTHENTICATION_FAILED');
  });

  it('finds it among the errors of a request about several topics', () => {
    const perTopic = (type: string) =>
      Object.assign(new Error(type), { name: 'KafkaJSCreateTopicError', type });
    const aggregate = Object.assign(new Error('Topic creation errors'), {
      name: 'KafkaJSAggregateError',
      errors: [perTopic('TOPIC_ALREADY_EXISTS'), perTopic('TOPIC_AUTHORIZATION_FAILED')],
    });
    const fault = new Fault('kafka_error', 'Kafka refused', { cause: aggregate });
    expect(kafkaRefusal(fault)).toBe('TOPIC_AUTHORIZATION_FAILED');
  });

  it('is undefined for every other error', () => {
    expect(kafkaRefusal(unknownTopic())).toBeUndefined();
    expect(kafkaRefusal(refused('NOT_CONTROLLER'))).toBeUndefined();
    expect(kafkaRefusal(new Error('x'))).toBeUndefined();
    expect(kafkaRefusal(undefined)).toBeUndefined();
  });
});
