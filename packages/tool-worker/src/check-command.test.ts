import { describe, expect, it } from 'vitest';
import { createCommandChecker, resultIdsOf } from './check-command.js';
import { sampleCommand } from './command.test-support.js';

const check = createCommandChecker();
const ids = {
  commandId: sampleCommand().commandId,
  idempotencyKey: sampleCommand().idempotencyKey,
  runId: 'run-1',
};

describe('createCommandChecker', () => {
  it('accepts a command of the commands schema on its own tool topic', () => {
    expect(check(sampleCommand(), 'approve_invoice')).toEqual({
      ok: true,
      command: sampleCommand(),
    });
  });

  it('refuses a command that names another tool than its topic, with ids to answer', () => {
    const checked = check(sampleCommand(), 'refund_payment');
    expect(checked).toEqual({
      ok: false,
      ids,
      problems: ["/tool: names another tool than the topic's (refund_payment)"],
    });
  });

  it('names every schema problem by path and keyword, never by value', () => {
    const { deadline: _deadline, ...noDeadline } = sampleCommand();
    const broken = { ...noDeadline, objects: [{ type: 'Invoice', id: 'inv_481', version: -1 }] };
    const checked = check({ ...broken, secretField: 'hunter2' }, 'approve_invoice');
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.ids).toEqual(ids);
    expect(checked.problems).toEqual(
      expect.arrayContaining([
        '/: required deadline',
        '/: additionalProperties secretField',
        '/objects/0/version: minimum',
      ]),
    );
    expect(JSON.stringify(checked.problems)).not.toContain('hunter2');
  });

  it('refuses a deadline that is not an instant', () => {
    expect(check(sampleCommand({ deadline: 'tomorrow' }), 'approve_invoice')).toMatchObject({
      ok: false,
      problems: ['/deadline: format'],
    });
  });
});

describe('resultIdsOf', () => {
  it('finds the ids a result needs even in a record that is not a valid command', () => {
    expect(resultIdsOf({ commandId: 'c', idempotencyKey: 'k', context: { runId: 'r' } })).toEqual({
      commandId: 'c',
      idempotencyKey: 'k',
      runId: 'r',
    });
  });

  it('finds none when any of them is missing, empty or not text', () => {
    for (const value of [
      null,
      [],
      'cmd',
      { commandId: 'c', idempotencyKey: 'k' },
      { commandId: 'c', idempotencyKey: 'k', context: { runId: '' } },
      { commandId: 1, idempotencyKey: 'k', context: { runId: 'r' } },
      { commandId: 'c', idempotencyKey: 'k', context: ['r'] },
    ]) {
      expect(resultIdsOf(value), JSON.stringify(value)).toBeUndefined();
    }
  });
});
