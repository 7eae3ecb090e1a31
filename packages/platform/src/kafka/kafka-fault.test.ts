import { describe, expect, it } from 'vitest';
import { Fault } from '../fault.js';
import { BUS_FAULTS, kafkaFault, membershipLost } from './kafka-fault.js';

/** An error shaped like the ones kafkajs throws. */
function kafkaError(name: string, fields: Record<string, unknown> = {}): Error {
  const message = typeof fields['message'] === 'string' ? fields['message'] : name;
  return Object.assign(new Error(message), { name, ...fields });
}

describe('kafkaFault', () => {
  it.each([
    'KafkaJSConnectionError',
    'KafkaJSConnectionClosedError',
    'KafkaJSRequestTimeoutError',
    'KafkaJSBrokerNotFound',
    'KafkaJSNoBrokerAvailableError',
    'KafkaJSLockTimeout',
    'KafkaJSGroupCoordinatorNotFound',
  ])('calls %s a retriable kafka_unavailable', (name) => {
    const fault = kafkaFault(kafkaError(name), 'send');
    expect(fault).toMatchObject({ code: BUS_FAULTS.unavailable, retriable: true });
    expect(fault.message).toContain('send');
  });

  it('looks through retries-exceeded to the connection error that caused it', () => {
    const cause = kafkaError('KafkaJSConnectionError', {
      message: 'Connection error: ECONNREFUSED',
    });
    const error = kafkaError('KafkaJSNumberOfRetriesExceeded', { retriable: false, cause });
    expect(kafkaFault(error, 'connect a producer')).toMatchObject({
      code: BUS_FAULTS.unavailable,
      retriable: true,
      cause: error,
    });
  });

  it('treats a socket error code as unavailable', () => {
    expect(kafkaFault(kafkaError('Error', { code: 'ECONNRESET' }), 'fetch')).toMatchObject({
      code: BUS_FAULTS.unavailable,
    });
  });

  it('treats a retriable protocol error (a coordinator moving) as unavailable', () => {
    const error = kafkaError('KafkaJSProtocolError', { type: 'NOT_COORDINATOR', retriable: true });
    expect(kafkaFault(error, 'commit')).toMatchObject({ code: BUS_FAULTS.unavailable });
  });

  it.each([
    { type: 'INVALID_PRODUCER_EPOCH', message: 'epoch' },
    { type: 'PRODUCER_FENCED', message: 'fenced' },
    { type: 'KAFKAJS_UNKNOWN_ERROR_CODE', message: 'Unknown error code 90' },
  ])('calls $type ($message) a fenced producer, never retriable', (fields) => {
    const error = kafkaError('KafkaJSProtocolError', { ...fields, retriable: false });
    expect(kafkaFault(error, 'commit')).toMatchObject({
      code: BUS_FAULTS.fenced,
      retriable: false,
    });
  });

  it('finds fencing behind a retriable wrapper, because a fenced producer must stop', () => {
    const cause = kafkaError('KafkaJSProtocolError', { type: 'INVALID_PRODUCER_EPOCH' });
    const error = kafkaError('KafkaJSConnectionError', { cause });
    expect(kafkaFault(error, 'commit').code).toBe(BUS_FAULTS.fenced);
  });

  it('reports any other refusal as a non-retriable kafka_error naming the protocol type', () => {
    const error = kafkaError('KafkaJSProtocolError', {
      type: 'TOPIC_AUTHORIZATION_FAILED',
      retriable: false,
    });
    const fault = kafkaFault(error, 'send');
    expect(fault).toMatchObject({ code: BUS_FAULTS.error, retriable: false });
    expect(fault.message).toContain('TOPIC_AUTHORIZATION_FAILED');
  });

  it('passes a Fault through unchanged', () => {
    const fault = new Fault('redis_unavailable', 'down');
    expect(kafkaFault(fault, 'anything')).toBe(fault);
  });

  it('survives a cause cycle and non-error values', () => {
    const a = kafkaError('Error');
    Object.assign(a, { cause: a });
    expect(kafkaFault(a, 'x').code).toBe(BUS_FAULTS.error);
    expect(kafkaFault('a string', 'x').code).toBe(BUS_FAULTS.error);
  });
});

describe('membershipLost', () => {
  it.each(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'FENCED_INSTANCE_ID'])(
    'says a member that got %s must not commit',
    (type) => {
      expect(membershipLost(kafkaError('KafkaJSProtocolError', { type }))).toBe(true);
    },
  );

  it('lets a member that hears REBALANCE_IN_PROGRESS commit before it rejoins', () => {
    const error = kafkaError('KafkaJSProtocolError', { type: 'REBALANCE_IN_PROGRESS' });
    expect(membershipLost(error)).toBe(false);
    expect(membershipLost(kafkaError('KafkaJSConnectionError'))).toBe(false);
  });
});
