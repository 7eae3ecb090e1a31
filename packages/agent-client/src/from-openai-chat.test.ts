import { describe, expect, it } from 'vitest';
import { UnrecognizedResponseError } from './agent-client-error.js';
import { fromOpenAIChat } from './from-openai-chat.js';
import {
  openAIChatResponse,
  openAIChatTextResponse,
  readByCore,
} from './provider-responses.test-support.js';

const ids = { runId: 'run-7', requestId: 'req-42', proposalId: 'p-81f2' };

describe('fromOpenAIChat', () => {
  it('makes one proposal per tool call, each carrying the tool_calls item exactly as it came', () => {
    const response = openAIChatResponse();
    const items = response.choices[0]!.message.tool_calls;
    const proposals = fromOpenAIChat(response, ids);
    expect(proposals).toEqual([
      {
        proposalId: 'p-81f2',
        runId: 'run-7',
        requestId: 'req-42',
        format: 'openai-chat',
        finishReason: 'tool_calls',
        attempt: 0,
        repairOf: null,
        call: items[0],
      },
      expect.objectContaining({ proposalId: 'p-81f2-1', finishReason: 'tool_calls' }),
    ]);
    expect(proposals[1]!.call).toBe(items[1]);
  });

  it('hands the gate calls it reads back as the model made them', () => {
    const [search, calculate] = fromOpenAIChat(openAIChatResponse(), ids);
    expect(readByCore(search)).toEqual({
      ok: true,
      value: {
        callId: 'call_62136354',
        tool: 'search',
        args: { query: 'overdue invoices', max_results: 3 },
      },
    });
    expect(readByCore(calculate)).toMatchObject({ ok: true, value: { tool: 'calculate' } });
  });

  it('gives each call a fresh random proposalId when none is given', () => {
    const proposals = fromOpenAIChat(openAIChatResponse(), { runId: 'r', requestId: 'q' });
    const [a, b] = proposals.map((p) => p.proposalId);
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });

  it('passes finish_reason "length" on, so the gate refuses the cut-off call for a retry', () => {
    const cut = [{ id: 'call_1', name: 'search', arguments: '{"query":"overdue inv' }];
    const [proposal] = fromOpenAIChat(openAIChatResponse(cut, 'length'), ids);
    expect(proposal!.finishReason).toBe('length');
    expect(readByCore(proposal)).toMatchObject({
      ok: false,
      code: 'truncated',
      disposition: 'retry',
    });
  });

  it('yields no proposal for a reply in text, or a response without choices', () => {
    expect(fromOpenAIChat(openAIChatTextResponse, ids)).toEqual([]);
    expect(fromOpenAIChat({ ...openAIChatTextResponse, choices: [] }, ids)).toEqual([]);
  });

  it.each([
    ['a message instead of the response', openAIChatResponse().choices[0]!.message],
    ['the response as JSON text', JSON.stringify(openAIChatResponse())],
    ['a choice without a message', { choices: [{ index: 0 }] }],
    ['tool_calls that are not a list', { choices: [{ message: { tool_calls: {} } }] }],
  ])('refuses %s as an unrecognized openai-chat response', (_, raw) => {
    expect(() => fromOpenAIChat(raw, ids)).toThrow(UnrecognizedResponseError);
    expect(() => fromOpenAIChat(raw, ids)).toThrow(/^unrecognized openai-chat response: /);
  });
});
