import { describe, expect, it } from 'vitest';
import { normalizeMcp } from './normalize-mcp.js';
import { normalizeProposal } from './normalize-proposal.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { parseCall } from './parse-call.js';

const L = DEFAULT_PARSE_LIMITS;

const proposal = (call: unknown, finishReason: string | null = null) => ({
  proposalId: 'p-1',
  runId: 'run-1',
  requestId: 'req-1',
  format: 'mcp',
  finishReason,
  call,
});

const request = (id: unknown, params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params,
});

function represent(input: unknown) {
  const n = normalizeProposal(input, L);
  return n.ok ? parseCall(n.value.call, L) : n;
}

describe('normalizeMcp', () => {
  it('turns a tools/call request into a parsed call whose id is the request id as a string', () => {
    expect(represent(proposal(request(7, { name: 'search', arguments: { q: 'x' } })))).toEqual({
      ok: true,
      value: { callId: '7', tool: 'search', args: { q: 'x' } },
    });
  });

  it('reads absent arguments as {}, as MCP defines them', () => {
    expect(represent(proposal(request('r-1', { name: 'list_files' })))).toMatchObject({
      ok: true,
      value: { callId: 'r-1', args: {} },
    });
  });

  it('refuses a request whose model output was cut off, when the agent passes the finish word on', () => {
    expect(represent(proposal(request(1, { name: 's', arguments: {} }), 'length'))).toMatchObject({
      code: 'truncated',
    });
  });

  it('does not decode or unfence string arguments: they are not an object', () => {
    const d = represent(proposal(request(1, { name: 's', arguments: '```json\n{}\n```' })));
    expect(d).toMatchObject({ code: 'not_an_object' });
  });

  it('refuses null arguments as not an object', () => {
    expect(represent(proposal(request(1, { name: 's', arguments: null })))).toMatchObject({
      code: 'not_an_object',
    });
  });

  it.each([
    ['JSON-RPC 1.0', { ...request(1, { name: 's' }), jsonrpc: '1.0' }],
    ['tools/list', { ...request(1, { name: 's' }), method: 'tools/list' }],
    ['no id', { jsonrpc: '2.0', method: 'tools/call', params: { name: 's' } }],
    ['a null id', request(null, { name: 's' })],
    ['an empty id', request('', { name: 's' })],
    ['a fractional id', request(1.5, { name: 's' })],
    ['an id beyond 2^53 (already rounded)', request(2 ** 60, { name: 's' })],
    ['no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
    ['no name', request(1, { arguments: {} })],
  ])('refuses a payload with %s as unsupported_format', (_, call) => {
    const d = normalizeMcp({ call, completion: 'unknown', proposalId: 'p', limits: L });
    expect(d).toMatchObject({ ok: false, code: 'unsupported_format', disposition: 'deny' });
  });
});
