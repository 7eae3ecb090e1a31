import { describe, expect, it } from 'vitest';
import { MAX_PROPOSAL_ID_CHARS } from './check-envelope.js';
import { normalizeProposal } from './normalize-proposal.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';

const L = DEFAULT_PARSE_LIMITS;

const good = {
  proposalId: 'p-81f2',
  runId: 'run-7',
  requestId: 'req-42',
  format: 'openai-chat',
  call: { id: 'call_abc', type: 'function', function: { name: 'search', arguments: '{}' } },
};

const codeOf = (input: unknown): string => {
  const d = normalizeProposal(input, L);
  return d.ok ? 'ok' : d.code;
};

describe('normalizeProposal', () => {
  it('fills in the envelope defaults: attempt 0, repairOf and finishReason null', () => {
    const d = normalizeProposal(good, L);
    expect(d.ok && d.value.proposal).toEqual({
      ...good,
      attempt: 0,
      repairOf: null,
      finishReason: null,
    });
  });

  it('keeps attempt, repairOf and the finish word of a correction', () => {
    const d = normalizeProposal({ ...good, attempt: 2, repairOf: 'p-1', finishReason: 'stop' }, L);
    expect(d.ok && d.value.proposal).toMatchObject({
      attempt: 2,
      repairOf: 'p-1',
      finishReason: 'stop',
    });
  });

  it.each([
    ['null', null],
    ['an array', [good]],
    ['a string', JSON.stringify(good)],
    ['no proposalId', { ...good, proposalId: undefined }],
    ['an empty runId', { ...good, runId: '' }],
    ['a numeric requestId', { ...good, requestId: 42 }],
    ['no format', { ...good, format: undefined }],
    ['a numeric format', { ...good, format: 1 }],
    ['a negative attempt', { ...good, attempt: -1 }],
    ['a fractional attempt', { ...good, attempt: 1.5 }],
    ['a string attempt', { ...good, attempt: '1' }],
    ['an empty repairOf', { ...good, repairOf: '' }],
    ['a numeric finishReason', { ...good, finishReason: 3 }],
    ['no call', { ...good, call: undefined }],
    ['an unknown field', { ...good, tenant: 'acme' }],
  ])('refuses an envelope with %s as invalid_proposal, disposition deny', (_, input) => {
    expect(normalizeProposal(input, L)).toMatchObject({
      ok: false,
      code: 'invalid_proposal',
      disposition: 'deny',
    });
  });

  it('names every problem at once', () => {
    const d = normalizeProposal({ format: 'mcp', call: {}, attempt: -1, tenant: 't' }, L);
    const message = d.ok ? '' : d.publicMessage;
    for (const part of ['proposalId', 'runId', 'requestId', 'attempt', '"tenant"']) {
      expect(message).toContain(part);
    }
  });

  it('refuses an id longer than MAX_PROPOSAL_ID_CHARS, naming it, and takes one of exactly that length', () => {
    const at = 'i'.repeat(MAX_PROPOSAL_ID_CHARS);
    const over = `${at}i`;
    const anthropic = (id: string) => ({
      ...good,
      format: 'anthropic',
      call: { type: 'tool_use', id, name: 'search', input: {} },
    });
    const inputs = {
      proposalId: { ...good, proposalId: over },
      runId: { ...good, runId: over },
      requestId: { ...good, requestId: over },
      repairOf: { ...good, repairOf: over },
      'the call id': anthropic(over),
    };
    for (const [field, input] of Object.entries(inputs)) {
      const d = normalizeProposal(input, L);
      expect(d, field).toMatchObject({ ok: false, code: 'invalid_proposal', disposition: 'deny' });
      expect(d.ok ? '' : d.publicMessage, field).toContain(
        `${field} must be at most ${MAX_PROPOSAL_ID_CHARS} characters`,
      );
    }
    const longest = { ...anthropic(at), proposalId: at, runId: at, requestId: at, repairOf: at };
    expect(codeOf(longest)).toBe('ok');
  });

  it('refuses a format the gate does not know as unsupported_format, listing the known ones', () => {
    const d = normalizeProposal({ ...good, format: 'gemini' }, L);
    expect(d).toMatchObject({ code: 'unsupported_format', disposition: 'deny' });
    expect(d.ok ? '' : d.publicMessage).toContain('openai-responses');
  });

  it('dispatches each format to its own normalizer', () => {
    const calls = {
      'openai-chat': good.call,
      'openai-responses': { type: 'function_call', call_id: 'c', name: 's', arguments: '{}' },
      anthropic: { type: 'tool_use', id: 'c', name: 's', input: {} },
      mcp: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 's' } },
      'action-json': '{"action":"s","arguments":{}}',
    };
    for (const [format, call] of Object.entries(calls)) {
      expect(codeOf({ ...good, format, call }), format).toBe('ok');
      expect(codeOf({ ...good, format, call: { nonsense: true } }), format).not.toBe('ok');
    }
  });

  it('answers a throwing getter or proxy with a refusal instead of a throw', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('boom');
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('boom');
        },
      },
    );
    expect(normalizeProposal(hostile, L)).toMatchObject({ ok: false, code: 'invalid_proposal' });
  });
});
