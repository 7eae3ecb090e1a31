import { describe, expect, it } from 'vitest';
import { normalizeOpenAiChat } from './normalize-openai-chat.js';
import { normalizeProposal } from './normalize-proposal.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { parseCall } from './parse-call.js';

const L = DEFAULT_PARSE_LIMITS;

const proposal = (call: unknown, finishReason: string | null = 'tool_calls') => ({
  proposalId: 'p-81f2',
  runId: 'run-7',
  requestId: 'req-42',
  format: 'openai-chat',
  finishReason,
  attempt: 0,
  repairOf: null,
  call,
});

const toolCall = (args: unknown, name = 'search') => ({
  id: 'call_abc',
  type: 'function',
  function: { name, arguments: args },
});

/** Both halves of the rung, as the validate stage runs them. */
function represent(input: unknown) {
  const n = normalizeProposal(input, L);
  return n.ok ? parseCall(n.value.call, L) : n;
}

describe('normalizeOpenAiChat', () => {
  it('turns a tool_calls item into a parsed call with the provider id', () => {
    expect(represent(proposal(toolCall('{"query":"x","max_results":3}')))).toEqual({
      ok: true,
      value: { callId: 'call_abc', tool: 'search', args: { query: 'x', max_results: 3 } },
    });
  });

  it.each([
    ['tool_calls', 'complete'],
    ['stop', 'complete'],
    ['length', 'truncated'],
    ['content_filter', 'truncated'],
    [null, 'unknown'],
    ['something_new', 'unknown'],
  ])('maps finish_reason %j to %s', (word, completion) => {
    const n = normalizeProposal(proposal(toolCall('{}'), word), L);
    expect(n.ok && n.value.call.completion).toBe(completion);
  });

  it('refuses a call cut off by the token limit, even when its arguments happen to parse', () => {
    expect(represent(proposal(toolCall('{"query":"x"}'), 'length'))).toMatchObject({
      ok: false,
      code: 'truncated',
      disposition: 'retry',
    });
  });

  it.each(['stop', 'tool_calls', null])(
    'refuses arguments that end early as truncated although finish_reason says %j',
    (word) => {
      expect(represent(proposal(toolCall('{"query":"x","max_'), word))).toMatchObject({
        code: 'truncated',
        disposition: 'retry',
      });
    },
  );

  it('strips a json fence around the whole arguments text and says so', () => {
    expect(represent(proposal(toolCall('```json\n{"city":"paris"}\n```')))).toEqual({
      ok: true,
      value: { callId: 'call_abc', tool: 'search', args: { city: 'paris' }, repaired: 'fence' },
    });
  });

  it('passes an unknown tool name on: the schema rung refuses it', () => {
    expect(represent(proposal(toolCall('{}', 'no_such_tool')))).toMatchObject({
      ok: true,
      value: { tool: 'no_such_tool' },
    });
  });

  it.each([
    ['a string', 'call'],
    ['an array', [toolCall('{}')]],
    ['no type', { id: 'c', function: { name: 's', arguments: '{}' } }],
    ['a custom tool call', { id: 'c', type: 'custom', custom: { name: 's', input: 'x' } }],
    ['no id', { type: 'function', function: { name: 's', arguments: '{}' } }],
    ['an empty id', { id: '', type: 'function', function: { name: 's', arguments: '{}' } }],
    ['a numeric id', { id: 7, type: 'function', function: { name: 's', arguments: '{}' } }],
    ['no function', { id: 'c', type: 'function' }],
    ['no name', { id: 'c', type: 'function', function: { arguments: '{}' } }],
    ['an empty name', { id: 'c', type: 'function', function: { name: '', arguments: '{}' } }],
    ['object arguments', { id: 'c', type: 'function', function: { name: 's', arguments: {} } }],
    ['no arguments', { id: 'c', type: 'function', function: { name: 's' } }],
  ])('refuses a payload with %s as unsupported_format, disposition deny', (_, call) => {
    const d = normalizeOpenAiChat({ call, completion: 'complete', proposalId: 'p', limits: L });
    expect(d).toMatchObject({ ok: false, code: 'unsupported_format', disposition: 'deny' });
  });

  it('names the broken field in the refusal', () => {
    const d = represent(proposal({ id: 'c', type: 'function', function: { arguments: '{}' } }));
    expect(d.ok ? '' : d.publicMessage).toContain('function.name');
  });
});
