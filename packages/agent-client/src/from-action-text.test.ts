import { describe, expect, it } from 'vitest';
import { UnrecognizedResponseError } from './agent-client-error.js';
import { fromActionText } from './from-action-text.js';
import { readByCore } from './provider-responses.test-support.js';

const ids = { runId: 'run-7', requestId: 'req-42', proposalId: 'p-1' };

describe('fromActionText', () => {
  it('sends the model text as it is, with the finish word when given', () => {
    const text = '```json\n{"action": "search", "arguments": {"query": "x"}}\n```';
    const [proposal] = fromActionText(text, ids, 'stop');
    expect(proposal).toEqual({
      proposalId: 'p-1',
      runId: 'run-7',
      requestId: 'req-42',
      format: 'action-json',
      finishReason: 'stop',
      attempt: 0,
      repairOf: null,
      call: text,
    });
    // The fence is the gate's one repair, recorded as such; the adapter did not strip it.
    expect(readByCore(proposal)).toEqual({
      ok: true,
      value: { callId: 'p-1', tool: 'search', args: { query: 'x' }, repaired: 'fence' },
    });
  });

  it('sends text that is no call all the same, for the gate to refuse for repair', () => {
    const [proposal] = fromActionText('I will search for it now.', ids);
    expect(proposal!.finishReason).toBeNull();
    expect(readByCore(proposal)).toMatchObject({ ok: false, disposition: 'repair' });
  });

  it('refuses a reply that is not text', () => {
    expect(() => fromActionText({ action: 'search' }, ids)).toThrow(UnrecognizedResponseError);
  });
});
