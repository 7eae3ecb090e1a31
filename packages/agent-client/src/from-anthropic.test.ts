import { describe, expect, it } from 'vitest';
import { UnrecognizedResponseError } from './agent-client-error.js';
import { fromAnthropic } from './from-anthropic.js';
import { anthropicMessage, readByCore } from './provider-responses.test-support.js';

const ids = { runId: 'run-7', requestId: 'req-42', proposalId: 'p-1' };

describe('fromAnthropic', () => {
  it('makes a proposal of each tool_use block, skipping text, with the stop_reason', () => {
    const message = anthropicMessage();
    const proposals = fromAnthropic(message, ids);
    expect(proposals).toEqual([
      {
        proposalId: 'p-1',
        runId: 'run-7',
        requestId: 'req-42',
        format: 'anthropic',
        finishReason: 'tool_use',
        attempt: 0,
        repairOf: null,
        call: message.content[1],
      },
    ]);
    expect(readByCore(proposals[0])).toEqual({
      ok: true,
      value: {
        callId: 'toolu_01A09q90qw90lq917835lq9',
        tool: 'search',
        args: { query: 'overdue invoices', max_results: 3 },
      },
    });
  });

  it('passes stop_reason "max_tokens" on, so the gate refuses the call for a retry', () => {
    const [proposal] = fromAnthropic(anthropicMessage({ query: 'x' }, 'max_tokens'), ids);
    expect(readByCore(proposal)).toMatchObject({ ok: false, code: 'truncated' });
  });

  it('leaves an input that is not an object for the gate to refuse, never fixing it', () => {
    const [proposal] = fromAnthropic(anthropicMessage('{"query":"x"}'), ids);
    expect(readByCore(proposal)).toMatchObject({
      ok: false,
      code: 'not_an_object',
      disposition: 'repair',
    });
  });

  it('yields no proposal for an end_turn reply in text', () => {
    const text = { ...anthropicMessage(), content: [{ type: 'text', text: 'Done.' }] };
    expect(fromAnthropic({ ...text, stop_reason: 'end_turn' }, ids)).toEqual([]);
  });

  it('refuses an OpenAI response as an unrecognized anthropic message', () => {
    expect(() => fromAnthropic({ choices: [] }, ids)).toThrow(UnrecognizedResponseError);
  });
});
