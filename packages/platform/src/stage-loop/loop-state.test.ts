import { describe, expect, it } from 'vitest';
import type { AdapterLogger } from '../adapter-logger.js';
import { isActive, LoopState, STAGE_LOOP_STATES, type StageLoopState } from './loop-state.js';

function recorded() {
  const lines: [string, string, object][] = [];
  const at = (level: string) => (fields: object, msg: string) =>
    void lines.push([level, msg, fields]);
  const logger: AdapterLogger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
  const reported: StageLoopState[] = [];
  const state = new LoopState(logger, (s) => reported.push(s));
  return { state, lines, reported };
}

describe('LoopState', () => {
  it('starts in starting, and reports and logs it', () => {
    const { state, lines, reported } = recorded();
    expect(state.get()).toBe('starting');
    expect(reported).toEqual(['starting']);
    expect(lines).toEqual([['info', 'stage loop starting', { state: 'starting' }]]);
  });

  it('logs each change with the state it came from', () => {
    const { state, lines, reported } = recorded();
    expect(state.moveTo('running')).toBe(true);
    expect(state.moveTo('crashed', { code: 'kafka_fenced' })).toBe(true);
    expect(reported).toEqual(['starting', 'running', 'crashed']);
    expect(lines.slice(1)).toEqual([
      ['info', 'stage loop running', { state: 'running', from: 'starting' }],
      [
        'error',
        'stage loop stopped on its own',
        { code: 'kafka_fenced', state: 'crashed', from: 'running' },
      ],
    ]);
  });

  it('refuses a change its state cannot make, saying nothing', () => {
    const { state, lines } = recorded();
    state.moveTo('running');
    state.moveTo('stopping');
    state.moveTo('stopped');
    for (const next of STAGE_LOOP_STATES) expect(state.moveTo(next), next).toBe(false);
    expect(state.get()).toBe('stopped');
    expect(lines).toHaveLength(4);
  });

  it('does not go back to running once stopping, nor crash twice', () => {
    const { state } = recorded();
    state.moveTo('stopping');
    expect(state.moveTo('running')).toBe(false);
    expect(state.moveTo('crashed')).toBe(true);
    expect(state.moveTo('crashed')).toBe(false);
    expect(state.moveTo('stopped')).toBe(false);
  });

  it('calls only starting and running active', () => {
    expect(STAGE_LOOP_STATES.filter(isActive)).toEqual(['starting', 'running']);
  });
});
