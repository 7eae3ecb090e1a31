import { describe, expect, it } from 'vitest';
import { toolError, toolOk } from './tool-handler.js';
import {
  checkOutcome,
  MAX_ERROR_MESSAGE_CHARS,
  readdressed,
  resultFor,
  shortMessage,
  workerError,
} from './tool-results.js';
import { WORKER_ERRORS } from './worker-errors.js';

const ids = { commandId: 'cmd-1', idempotencyKey: 'k-1', runId: 'run-1' };
const at = new Date('2030-01-01T00:00:01.000Z');
const invalidOutput = { outcome: workerError('invalid_output') };

describe('resultFor', () => {
  it('reports an ok outcome with its output, and leaves out an absent output', () => {
    expect(resultFor(ids, toolOk({ n: 1 }), at)).toEqual({
      ...ids,
      status: 'ok',
      output: { n: 1 },
      completedAt: '2030-01-01T00:00:01.000Z',
    });
    expect('output' in resultFor(ids, toolOk(), at)).toBe(false);
  });

  it('reports an error outcome with its code and message and no output', () => {
    expect(resultFor(ids, toolError('stale_object', 'It changed.'), at)).toEqual({
      ...ids,
      status: 'error',
      error: { code: 'stale_object', message: 'It changed.' },
      completedAt: '2030-01-01T00:00:01.000Z',
    });
  });
});

describe('workerError', () => {
  it("carries the worker code's fixed message", () => {
    expect(workerError('deadline_exceeded')).toEqual({
      status: 'error',
      error: { code: 'deadline_exceeded', message: WORKER_ERRORS.deadline_exceeded },
    });
  });
});

describe('readdressed', () => {
  it("keeps the recorded outcome and takes the asking command's ids", () => {
    const recorded = resultFor(ids, toolOk('done'), at);
    const other = { commandId: 'cmd-2', idempotencyKey: 'k-1', runId: 'run-2' };
    expect(readdressed(recorded, other)).toEqual({ ...recorded, ...other });
  });
});

describe('checkOutcome', () => {
  it('passes an ok output through as plain JSON', () => {
    const output = { at: new Date('2030-01-01T00:00:00.000Z'), skip: undefined, list: [1, 'a'] };
    expect(checkOutcome({ status: 'ok', output }, 1024)).toEqual({
      outcome: { status: 'ok', output: { at: '2030-01-01T00:00:00.000Z', list: [1, 'a'] } },
    });
    expect(checkOutcome({ status: 'ok' }, 1024)).toEqual({ outcome: { status: 'ok' } });
  });

  it('turns output that is not JSON, too large or too deep into invalid_output', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    let deep: unknown = 1;
    for (let i = 0; i < 70; i += 1) deep = [deep];
    // An own `__proto__` key survives JSON.stringify, but the gate's parser refuses it.
    const polluting: unknown = JSON.parse('{"__proto__":{"admin":true}}');
    for (const output of [10n, cyclic, () => 1, 'x'.repeat(2000), deep, polluting]) {
      const checked = checkOutcome({ status: 'ok', output }, 1024);
      expect(checked).toMatchObject(invalidOutput);
      expect(checked.problem).toBeDefined();
    }
  });

  it('keeps a handler error code and the first line of its message, cut short', () => {
    const message = `${'m'.repeat(400)}\n    at secret (/srv/tool.js:1:1)`;
    const checked = checkOutcome({ status: 'error', error: { code: 'stale_object', message } }, 1);
    expect(checked.outcome).toEqual({
      status: 'error',
      error: { code: 'stale_object', message: `${'m'.repeat(MAX_ERROR_MESSAGE_CHARS - 1)}…` },
    });
    expect(JSON.stringify(checked)).not.toContain('secret');
  });

  it('refuses answers that are not outcomes, and codes that are not safe', () => {
    for (const answer of [
      undefined,
      null,
      'ok',
      [],
      { status: 'done' },
      { status: 'error' },
      { status: 'error', error: { code: 'has space', message: 'x' } },
      { status: 'error', error: { code: '', message: 'x' } },
    ]) {
      expect(checkOutcome(answer, 1024), JSON.stringify(answer)).toMatchObject(invalidOutput);
    }
  });
});

describe('shortMessage', () => {
  it('says the tool reported an error when the message is blank', () => {
    expect(shortMessage('  \n stack')).toBe('The tool reported an error.');
  });
});
