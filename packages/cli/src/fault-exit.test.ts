import { Fault } from '@toolgate/platform';
import { describe, expect, it } from 'vitest';
import { CliError, EXIT } from './cli-error.js';
import { cliErrorOf } from './fault-exit.js';

const unknownTopic = () => {
  const protocol = Object.assign(new Error('This server does not host this topic-partition'), {
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
  });
  const retries = Object.assign(new Error(protocol.message), { originalError: protocol });
  return new Fault('kafka_unavailable', 'Kafka unavailable', { retriable: true, cause: retries });
};

describe('cliErrorOf', () => {
  it('reports a topic Kafka does not know as not found, naming it', () => {
    const error = cliErrorOf(unknownTopic(), 'tail', 'x.toolgate.audit') as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(EXIT.notFound);
    expect(error.message).toMatch(/topic x\.toolgate\.audit does not exist/);
  });

  it('reports unreachable infrastructure as unavailable and other faults as failed', () => {
    const down = new Fault('kafka_unavailable', 'no broker', { retriable: true });
    expect(cliErrorOf(down, 'stats', 'a')).toMatchObject({ exitCode: EXIT.unavailable });
    expect(cliErrorOf(unknownTopic(), 'stats')).toMatchObject({ exitCode: EXIT.unavailable });
    const refused = new Fault('kafka_error', 'not allowed', { retriable: false });
    expect(cliErrorOf(refused, 'stats')).toMatchObject({
      exitCode: EXIT.failed,
      message: 'stats: not allowed (kafka_error)',
    });
  });

  it('leaves errors that are not faults alone', () => {
    const plain = new Error('bug');
    expect(cliErrorOf(plain, 'stats')).toBe(plain);
  });
});
