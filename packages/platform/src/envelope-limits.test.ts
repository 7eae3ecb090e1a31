import { describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_DEPTH, parseJsonBounded } from '@toolgate/shared';
import { ENVELOPE_LIMITS } from './codec.js';

/** An arguments object nested `depth` containers deep, the object itself included. */
function nested(depth: number): unknown {
  let value: unknown = {};
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

describe('ENVELOPE_LIMITS', () => {
  it('reads an MCP proposal, alone or in an evaluate line, at the deepest maxDepth ceiling', () => {
    const proposal = {
      proposalId: 'p',
      runId: 'r',
      requestId: 'q',
      format: 'mcp',
      call: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 't', arguments: nested(MAX_ARGUMENT_DEPTH) },
      },
    };
    expect(parseJsonBounded(JSON.stringify(proposal), ENVELOPE_LIMITS).ok).toBe(true);
    // A line of `toolgate evaluate` wraps the proposal once more, and is read within as many levels.
    const line = { session: 'token', proposal };
    expect(parseJsonBounded(JSON.stringify(line), ENVELOPE_LIMITS).ok).toBe(true);
    const deeper = {
      session: 'token',
      proposal: { ...proposal, call: { params: { arguments: nested(MAX_ARGUMENT_DEPTH + 1) } } },
    };
    expect(parseJsonBounded(JSON.stringify(deeper), ENVELOPE_LIMITS)).toMatchObject({
      code: 'too_deep',
    });
  });
});
