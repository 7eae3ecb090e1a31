import { describe, expect, it } from 'vitest';
import { UnrecognizedResponseError } from './agent-client-error.js';
import { fromOpenAIResponses } from './from-openai-responses.js';
import { openAIResponsesResponse, readByCore } from './provider-responses.test-support.js';

const ids = { runId: 'run-7', requestId: 'req-42', proposalId: 'p-1' };

describe('fromOpenAIResponses', () => {
  it('makes a proposal of each function_call output item, skipping reasoning, with the response status', () => {
    const response = openAIResponsesResponse();
    const proposals = fromOpenAIResponses(response, ids);
    expect(proposals).toEqual([
      {
        proposalId: 'p-1',
        runId: 'run-7',
        requestId: 'req-42',
        format: 'openai-responses',
        finishReason: 'completed',
        attempt: 0,
        repairOf: null,
        call: response.output[1],
      },
    ]);
    expect(readByCore(proposals[0])).toEqual({
      ok: true,
      value: {
        callId: 'call_unLAR8MvFNptuiZK6K6HCy5k',
        tool: 'search',
        args: { query: 'overdue invoices' },
      },
    });
  });

  it('passes an incomplete status on, so the gate refuses the call for a retry', () => {
    const [proposal] = fromOpenAIResponses(
      openAIResponsesResponse('{"query":"ov', 'incomplete'),
      ids,
    );
    expect(proposal!.finishReason).toBe('incomplete');
    expect(readByCore(proposal)).toMatchObject({ ok: false, code: 'truncated' });
  });

  it('yields no proposal for a response whose output holds no function call', () => {
    const text = {
      ...openAIResponsesResponse(),
      output: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [] }],
    };
    expect(fromOpenAIResponses(text, ids)).toEqual([]);
  });

  it('refuses a Chat Completions response as an unrecognized openai-responses response', () => {
    expect(() => fromOpenAIResponses({ choices: [] }, ids)).toThrow(UnrecognizedResponseError);
  });
});
