import { describe, expect, it } from 'vitest';
import { completionOf, worseCompletion } from './completion-of.js';

describe('completionOf', () => {
  it.each([
    ['tool_calls', 'complete'],
    ['stop', 'complete'],
    ['end_turn', 'complete'],
    ['tool_use', 'complete'],
    ['completed', 'complete'],
    ['length', 'truncated'],
    ['max_tokens', 'truncated'],
    ['incomplete', 'truncated'],
    ['content_filter', 'truncated'],
    ['MAX_TOKENS', 'truncated'],
    [' length ', 'truncated'],
    ['stop_sequence', 'unknown'],
    ['constructor', 'unknown'],
    ['', 'unknown'],
    [null, 'unknown'],
    [undefined, 'unknown'],
  ])('maps %j to %s', (word, completion) => {
    expect(completionOf(word)).toBe(completion);
  });
});

describe('worseCompletion', () => {
  it('lets truncated win, then complete over unknown', () => {
    expect(worseCompletion('complete', 'truncated')).toBe('truncated');
    expect(worseCompletion('unknown', 'complete')).toBe('complete');
    expect(worseCompletion('unknown', 'unknown')).toBe('unknown');
  });
});
