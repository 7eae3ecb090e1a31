import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED } from './logger.js';

const TOKEN =
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsInRlbmFudCI6ImFjbWUifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

function capture(level = 'trace') {
  const lines: string[] = [];
  const logger = createLogger({
    level,
    stage: 'authorize',
    instanceId: 'host-1',
    destination: { write: (line: string) => void lines.push(line) },
  });
  return {
    logger,
    lines,
    parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  it('writes one JSON line with level name, ISO time, stage and instance', () => {
    const { logger, parsed } = capture();
    logger.info({ topic: 'toolgate.validated' }, 'handled');
    expect(parsed()).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
        stage: 'authorize',
        instanceId: 'host-1',
        topic: 'toolgate.validated',
        msg: 'handled',
      },
    ]);
  });

  it('never writes a session token, wherever it was put', () => {
    const { logger, lines } = capture();
    logger.info({ headers: { 'toolgate-session': TOKEN } }, 'message headers');
    logger.info({ msg: { headers: { 'toolgate-session': TOKEN } } }, 'nested headers');
    logger.info({ token: TOKEN, authorization: `Bearer ${TOKEN}` }, 'top level');
    logger.warn({ a: { b: { c: { d: { session: TOKEN } } } } }, 'deep');
    logger.error({ err: new Error(`bad token ${TOKEN}`) }, 'an error quoting it');
    logger.info(`pasted into the message: ${TOKEN}`);
    logger.child({ token: TOKEN }).info('in a binding');
    expect(lines).toHaveLength(7);
    for (const line of lines) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain(TOKEN.split('.')[1]);
    }
  });

  it('never writes secrets, passwords or tool arguments, at any depth', () => {
    const { logger, lines, parsed } = capture();
    const args = { card_number: '4111111111111111', note: 'private words' };
    logger.info({ secret: 's3cret-value', config: { integrityKey: 'k'.repeat(32) } }, 'config');
    logger.info({ password: 'hunter2-value' }, 'login');
    logger.info({ command: { tool: 'pay', args } }, 'command');
    logger.info(
      { proposal: { call: { function: { name: 'pay', arguments: JSON.stringify(args) } } } },
      'proposal',
    );
    logger.info({ batch: [{ envelope: { args } }] }, 'array');
    const all = lines.join('');
    for (const value of [
      's3cret-value',
      'k'.repeat(32),
      'hunter2-value',
      '4111111111111111',
      'private words',
    ]) {
      expect(all).not.toContain(value);
    }
    expect(parsed()[2]).toMatchObject({ command: { tool: 'pay', args: REDACTED } });
    expect(parsed()[3]).toMatchObject({ proposal: { call: { function: { name: 'pay' } } } });
  });

  it('keeps an error readable: type, message and stack', () => {
    const { logger, parsed } = capture();
    logger.error({ err: new TypeError('broken') }, 'failed');
    expect(parsed()[0]).toMatchObject({
      err: {
        type: 'TypeError',
        message: 'broken',
        stack: expect.stringContaining('TypeError') as unknown,
      },
    });
  });

  it('drops lines below its level', () => {
    const { logger, lines } = capture('warn');
    logger.info('quiet');
    logger.warn('loud');
    expect(lines).toHaveLength(1);
  });
});
