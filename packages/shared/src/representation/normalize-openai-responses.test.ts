import { describe, expect, it } from 'vitest';
import { normalizeOpenAiResponses } from './normalize-openai-responses.js';
import { normalizeProposal } from './normalize-proposal.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { parseCall } from './parse-call.js';

const L = DEFAULT_PARSE_LIMITS;

const proposal = (call: unknown, finishReason: string | null = 'completed') => ({
  proposalId: 'p-1',
  runId: 'run-1',
  requestId: 'req-1',
  format: 'openai-responses',
  finishReason,
  call,
});

const item = (args: string, extra: Record<string, unknown> = {}) => ({
  type: 'function_call',
  id: 'fc_12',
  call_id: 'call_9',
  name: 'get_weather',
  arguments: args,
  ...extra,
});

function represent(input: unknown) {
  const n = normalizeProposal(input, L);
  return n.ok ? parseCall(n.value.call, L) : n;
}

describe('normalizeOpenAiResponses', () => {
  it('turns a function_call item into a parsed call whose id is call_id', () => {
    expect(represent(proposal(item('{"city":"Oslo"}', { status: 'completed' })))).toEqual({
      ok: true,
      value: { callId: 'call_9', tool: 'get_weather', args: { city: 'Oslo' } },
    });
  });

  it('refuses a response whose status is incomplete', () => {
    expect(represent(proposal(item('{"city":"Oslo"}'), 'incomplete'))).toMatchObject({
      code: 'truncated',
      disposition: 'retry',
    });
  });

  it('refuses an item whose own status is incomplete, whatever the response says', () => {
    expect(represent(proposal(item('{"city":"Oslo"}', { status: 'incomplete' })))).toMatchObject({
      code: 'truncated',
    });
  });

  it('refuses arguments that end early as truncated although the status says completed', () => {
    expect(represent(proposal(item('{"city":"Os')))).toMatchObject({ code: 'truncated' });
  });

  it('strips a bare fence around the arguments and says so', () => {
    expect(represent(proposal(item('```\n{"city":"Oslo"}\n```')))).toMatchObject({
      ok: true,
      value: { args: { city: 'Oslo' }, repaired: 'fence' },
    });
  });

  it.each([
    ['a message item', { type: 'message', id: 'm', content: [] }],
    ['no call_id', { type: 'function_call', name: 'n', arguments: '{}' }],
    ['a numeric call_id', { type: 'function_call', call_id: 3, name: 'n', arguments: '{}' }],
    ['no name', { type: 'function_call', call_id: 'c', arguments: '{}' }],
    ['object arguments', { type: 'function_call', call_id: 'c', name: 'n', arguments: {} }],
    ['a numeric id', { ...item('{}'), id: 12 }],
    ['a numeric status', { ...item('{}'), status: 1 }],
  ])('refuses a payload with %s as unsupported_format', (_, call) => {
    const d = normalizeOpenAiResponses({
      call,
      completion: 'complete',
      proposalId: 'p',
      limits: L,
    });
    expect(d).toMatchObject({ ok: false, code: 'unsupported_format', disposition: 'deny' });
  });
});
