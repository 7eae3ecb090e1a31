import { describe, expect, it } from 'vitest';
import { normalizeActionJson } from './normalize-action-json.js';
import { normalizeProposal } from './normalize-proposal.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { parseCall } from './parse-call.js';

const L = DEFAULT_PARSE_LIMITS;

const proposal = (call: unknown, finishReason: string | null = 'stop') => ({
  proposalId: 'p-81f2',
  runId: 'run-1',
  requestId: 'req-1',
  format: 'action-json',
  finishReason,
  call,
});

function represent(input: unknown) {
  const n = normalizeProposal(input, L);
  return n.ok ? parseCall(n.value.call, L) : n;
}

const nested = (depth: number) => '['.repeat(depth - 1) + '{}' + ']'.repeat(depth - 1);

describe('normalizeActionJson', () => {
  it('turns the model text into a parsed call whose id is the proposalId', () => {
    expect(represent(proposal('{"action":"search","arguments":{"query":"x"}}'))).toEqual({
      ok: true,
      value: { callId: 'p-81f2', tool: 'search', args: { query: 'x' } },
    });
  });

  it('strips a json fence around the whole text and carries the repair to the parsed call', () => {
    const text = '```json\n{"action":"search","arguments":{"query":"x"}}\n```\n';
    expect(represent(proposal(text))).toMatchObject({
      ok: true,
      value: { tool: 'search', args: { query: 'x' }, repaired: 'fence' },
    });
  });

  it('refuses a text cut off by the token limit before reading it', () => {
    expect(represent(proposal('{"action":"search","arguments":{}}', 'length'))).toMatchObject({
      code: 'truncated',
      disposition: 'retry',
    });
  });

  it('refuses a text that ends early as truncated although the finish word says stop', () => {
    expect(represent(proposal('{"action":"search","arguments":{"query":"x'))).toMatchObject({
      code: 'truncated',
      disposition: 'retry',
    });
  });

  it('refuses a fence that opens and never closes as truncated', () => {
    expect(represent(proposal('```json\n{"action":"search","arguments":{}}'))).toMatchObject({
      code: 'truncated',
    });
  });

  it('refuses text around the JSON as invalid, disposition repair', () => {
    const d = represent(proposal('Sure! {"action":"search","arguments":{}}'));
    expect(d).toMatchObject({ code: 'invalid_json', disposition: 'repair' });
  });

  it.each([
    ['an array', '[{"action":"search","arguments":{}}]'],
    ['a JSON string', '"{\\"action\\":\\"search\\",\\"arguments\\":{}}"'],
    ['another name for the action', '{"tool":"search","arguments":{}}'],
    ['an empty action', '{"action":"","arguments":{}}'],
    ['no arguments', '{"action":"search"}'],
    ['an extra member', '{"action":"search","arguments":{},"thought":"hmm"}'],
  ])('refuses %s as malformed_call, disposition repair, showing the expected form', (_, text) => {
    const d = represent(proposal(text));
    expect(d).toMatchObject({ code: 'malformed_call', disposition: 'repair' });
    expect(d.ok ? '' : d.publicMessage).toContain('"action"');
  });

  it('refuses arguments that are not an object as not_an_object', () => {
    expect(represent(proposal('{"action":"search","arguments":"{\\"q\\":1}"}'))).toMatchObject({
      code: 'not_an_object',
    });
  });

  it('counts depth from the arguments object, as every other format does', () => {
    const text = (depth: number) => `{"action":"a","arguments":{"x":${nested(depth - 1)}}}`;
    expect(represent(proposal(text(32))).ok).toBe(true);
    expect(represent(proposal(text(33)))).toMatchObject({ code: 'too_deep' });
  });

  it('refuses a call that is not text as unsupported_format', () => {
    const d = normalizeActionJson({
      call: { action: 'search', arguments: {} },
      completion: 'complete',
      proposalId: 'p',
      limits: L,
    });
    expect(d).toMatchObject({ ok: false, code: 'unsupported_format', disposition: 'deny' });
  });
});
