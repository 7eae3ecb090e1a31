import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { logCreatorFor } from './kafkajs-log.js';
import { createLogger } from '../logger.js';

const { logLevel } = kafkajs;

function pinoLines() {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    stage: 'confirm',
    instanceId: 'host-1',
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('logCreatorFor', () => {
  it('writes kafkajs warnings and errors through a real pino logger, routine lines at debug', () => {
    const { logger, parsed } = pinoLines();
    const log = logCreatorFor(logger)();
    const entry = (level: number, message: string) => ({
      namespace: 'Admin',
      level,
      label: 'WARN',
      log: { message, timestamp: 'now', logger: 'kafkajs', topic: 't' },
    });
    log(entry(logLevel.WARN, 'Topic creation errors'));
    log(entry(logLevel.ERROR, 'Crash'));
    log(entry(logLevel.WARN, 'There is another concurrent operation on the same transaction'));
    expect(parsed().map((l) => [l['level'], l['msg'], l['kafkajs'], l['topic']])).toEqual([
      ['warn', 'Topic creation errors', 'Admin', 't'],
      ['error', 'Crash', 'Admin', 't'],
      ['debug', 'There is another concurrent operation on the same transaction', 'Admin', 't'],
    ]);
  });
});
