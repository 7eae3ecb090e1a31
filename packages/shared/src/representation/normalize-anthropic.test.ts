import { describe, expect, it } from 'vitest';
import { normalizeAnthropic } from './normalize-anthropic.js';
import { normalizeProposal } from './normalize-proposal.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { parseCall } from './parse-call.js';

const L = DEFAULT_PARSE_LIMITS;

const proposal = (call: unknown, finishReason: string | null = 'tool_use') => ({
  proposalId: 'p-1',
  runId: 'run-1',
  requestId: 'req-1',
  format: 'anthropic',
  finishReason,
  call,
});

const block = (input: unknown) => ({ type: 'tool_use', id: 'toolu_01', name: 'search', input });

function represent(input: unknown) {
  const n = normalizeProposal(input, L);
  return n.ok ? parseCall(n.value.call, L) : n;
}

describe('normalizeAnthropic', () => {
  it('turns a tool_use block into a parsed call with the block id', () => {
    expect(represent(proposal(block({ query: 'x' })))).toEqual({
      ok: true,
      value: { callId: 'toolu_01', tool: 'search', args: { query: 'x' } },
    });
  });

  it.each(['max_tokens', 'MAX_TOKENS', 'length'])(
    'refuses a block cut off by the token limit (stop_reason %j), though its input is an object',
    (word) => {
      expect(represent(proposal(block({ query: 'x' }), word))).toMatchObject({
        code: 'truncated',
        disposition: 'retry',
      });
    },
  );

  it('reads end_turn as complete and stop_sequence as unknown', () => {
    const completion = (word: string) => {
      const n = normalizeProposal(proposal(block({}), word), L);
      return n.ok && n.value.call.completion;
    };
    expect([completion('end_turn'), completion('stop_sequence')]).toEqual(['complete', 'unknown']);
  });

  it('does not decode, unfence or finish a string input: it is not an object', () => {
    for (const input of ['{"query":"x"}', '```json\n{"query":"x"}\n```', '{"query":"x']) {
      expect(represent(proposal(block(input), 'end_turn'))).toMatchObject({
        code: 'not_an_object',
        disposition: 'repair',
      });
    }
  });

  it('checks the input object for forbidden keys that JSON.parse kept as own properties', () => {
    const call = JSON.parse(
      '{"type":"tool_use","id":"t","name":"s","input":{"__proto__":{"x":1}}}',
    ) as unknown;
    expect(represent(proposal(call))).toMatchObject({ code: 'forbidden_key', disposition: 'deny' });
  });

  it.each([
    ['a text block', { type: 'text', text: 'hi' }],
    ['a server tool block', { type: 'server_tool_use', id: 'x', name: 'web_search', input: {} }],
    ['no id', { type: 'tool_use', name: 's', input: {} }],
    ['no name', { type: 'tool_use', id: 'x', input: {} }],
    ['no input', { type: 'tool_use', id: 'x', name: 's' }],
  ])('refuses a payload with %s as unsupported_format', (_, call) => {
    const d = normalizeAnthropic({ call, completion: 'complete', proposalId: 'p', limits: L });
    expect(d).toMatchObject({ ok: false, code: 'unsupported_format', disposition: 'deny' });
  });
});
