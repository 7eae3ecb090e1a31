import { describe, expect, it } from 'vitest';
import { UnrecognizedResponseError } from './agent-client-error.js';
import { fromMcp } from './from-mcp.js';
import { mcpToolsCall, readByCore } from './provider-responses.test-support.js';

describe('fromMcp', () => {
  it('makes one proposal of a tools/call request, unchanged, without a finish word', () => {
    const proposals = fromMcp(mcpToolsCall, { runId: 'run-7', requestId: 'req-42' });
    expect(proposals).toEqual([
      {
        proposalId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
        runId: 'run-7',
        requestId: 'req-42',
        format: 'mcp',
        finishReason: null,
        attempt: 0,
        repairOf: null,
        call: mcpToolsCall,
      },
    ]);
    expect(readByCore(proposals[0])).toEqual({
      ok: true,
      value: { callId: '2', tool: 'search', args: { query: 'overdue invoices' } },
    });
  });

  it('leaves a request for another method for the gate to refuse', () => {
    const [proposal] = fromMcp(
      { ...mcpToolsCall, method: 'tools/list' },
      { runId: 'r', requestId: 'q' },
    );
    expect(readByCore(proposal)).toMatchObject({ ok: false, code: 'unsupported_format' });
  });

  it('refuses a request that is not an object', () => {
    expect(() => fromMcp(JSON.stringify(mcpToolsCall), { runId: 'r', requestId: 'q' })).toThrow(
      UnrecognizedResponseError,
    );
  });
});
