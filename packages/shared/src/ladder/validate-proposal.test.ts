import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_LIMITS } from '../representation/index.js';
import { createToolRegistry, defineTool } from '../tools/index.js';
import type { Proposal } from '../types.js';
import { repairStep } from './admit-proposal.js';
import {
  envelopeIds,
  MAX_ANSWERED_ID_CHARS,
  refuseUnparsedProposal,
  validateProposal,
} from './validate-proposal.js';

const facts = {
  registry: createToolRegistry([
    defineTool<{ query: string }>({
      name: 'search',
      description: 'Search.',
      version: '1',
      sideEffect: 'read',
      input: {
        type: 'object',
        properties: { query: { type: 'string' } },
        required: ['query'],
        additionalProperties: false,
      },
    }),
  ]),
  limits: DEFAULT_PARSE_LIMITS,
  repairBudget: 2,
};
const alice = { subject: 'alice', tenant: 'acme', roles: [] };

const actionText = (attempt: number, call: unknown): Proposal => ({
  proposalId: `p-${attempt}`,
  runId: 'run-1',
  requestId: 'req-1',
  format: 'action-json',
  finishReason: 'stop',
  attempt,
  repairOf: attempt === 0 ? null : `p-${attempt - 1}`,
  call,
});

const MALFORMED = '{"action": "search", "arguments": {"query": "x",}}';

describe('validateProposal', () => {
  it('keeps the repair budget for action text that is refused while it is read', () => {
    const answers = [0, 1, 2, 3].map((attempt) => {
      const step = validateProposal(actionText(attempt, MALFORMED), alice, facts);
      return step.ok ? 'accepted' : `${step.rejected.code} ${JSON.stringify(step.repair ?? null)}`;
    });
    expect(answers).toEqual([
      expect.stringMatching(/^invalid_json \{"attempt":1,"remaining":1,/),
      expect.stringMatching(/^invalid_json \{"attempt":2,"remaining":0,/),
      'repair_budget_exhausted null',
      'repair_budget_exhausted null',
    ]);
  });

  it('counts a malformed call shape of the bare format against the budget too', () => {
    const step = validateProposal(actionText(2, '{"tool": "search"}'), alice, facts);
    expect(step.ok ? undefined : [step.rejected.stage, step.rejected.code]).toEqual([
      'limits',
      'repair_budget_exhausted',
    ]);
  });

  it('refuses an envelope whose attempt is negative without offering a repair', () => {
    const step = validateProposal(actionText(-1, MALFORMED), alice, facts);
    expect(step.ok ? undefined : [step.rejected.code, step.repair]).toEqual([
      'invalid_proposal',
      undefined,
    ]);
  });
});

describe('envelopeIds', () => {
  const ids = { proposalId: 'p-1', runId: 'run-1', requestId: 'req-1' };

  it('reads ids up to the longest an answer may repeat, and names the ids that are longer', () => {
    const at = 'r'.repeat(MAX_ANSWERED_ID_CHARS);
    expect(envelopeIds({ ...ids, runId: at })).toEqual({ ok: true, value: { ...ids, runId: at } });
    const d = envelopeIds({ ...ids, runId: `${at}r`, requestId: 'q'.repeat(500_000) });
    expect(d).toMatchObject({ ok: false, stage: 'representation', code: 'invalid_proposal' });
    expect(d.ok ? '' : d.internalDetail).toBe(
      `longer than the ${MAX_ANSWERED_ID_CHARS} characters an answer may repeat: runId (4097), requestId (500000)`,
    );
  });
});

describe('refuseUnparsedProposal', () => {
  const envelope = { maxBytes: 1024 * 1024, maxDepth: 64 };
  const unparsedFacts = { limits: envelope, repairBudget: 2 };
  /** A plain-JSON MCP proposal record whose arguments object is the raw text `args`. */
  const record = (args: string, ids: Record<string, unknown> = {}, attempt = 0): string =>
    JSON.stringify({
      proposalId: 'p-1',
      runId: 'run-1',
      requestId: 'req-1',
      format: 'mcp',
      attempt,
      call: {
        jsonrpc: '2.0',
        id: 'c-1',
        method: 'tools/call',
        params: { name: 'search', arguments: 'ARGS' },
      },
      ...ids,
    }).replace('"ARGS"', args);
  const answer = (text: string) => {
    const a = refuseUnparsedProposal(text, unparsedFacts);
    const r = a && repairStep(a.checked, 0, unparsedFacts.repairBudget);
    return a && r && { ids: a.ids, ...r.rejected, repair: r.repair };
  };

  it("answers a repeated key in the arguments under the record's ids, with a repair offer", () => {
    expect(answer(record('{"query":"a","query":"b"}'))).toMatchObject({
      ids: { proposalId: 'p-1', runId: 'run-1', requestId: 'req-1' },
      stage: 'representation',
      code: 'duplicate_key',
      disposition: 'repair',
      publicMessage: expect.stringContaining('"query"') as unknown,
      internalDetail: expect.stringMatching(
        /^the proposal record was refused as a whole: /,
      ) as unknown,
      repair: { attempt: 1, remaining: 1 },
    });
  });

  it.each([
    ['{"__proto__":{"polluted":true}}', 'forbidden_key', 'deny'],
    ['{"constructor":1}', 'forbidden_key', 'deny'],
    ['{"query":"\\ud800"}', 'invalid_json', 'repair'],
    ['{"query":"x","max_results":9007199254740993}', 'unrepresentable_number', 'repair'],
    ['{"query":"x","max_results":9007199254740993.0}', 'unrepresentable_number', 'repair'],
    ['{"query":"x","max_results":1e400}', 'unrepresentable_number', 'repair'],
    [`${'['.repeat(70)}${']'.repeat(70)}`, 'too_deep', 'deny'],
  ])("answers arguments %s with the reader's code %s", (args, code, disposition) => {
    const a = answer(record(args));
    expect(a).toMatchObject({ code, disposition });
    // Positions in the record are not positions in the model's arguments: not shown to it.
    expect(a?.publicMessage).not.toMatch(/character/);
  });

  it('holds the repair budget: a record refused at the last attempt ends the repairs', () => {
    const a = refuseUnparsedProposal(record('{"query":"a","query":"b"}', {}, 2), unparsedFacts);
    const r = a && repairStep(a.checked, 0, unparsedFacts.repairBudget);
    expect(r?.rejected).toMatchObject({ stage: 'limits', code: 'repair_budget_exhausted' });
    expect(r?.repair).toBeUndefined();
  });

  it.each([
    ['a record the bounded parser accepts', record('{"query":"a"}')],
    ['a record cut short', record('{"query":"a","query":"b"}').slice(0, -3)],
    ['a record that is not JSON at all', "{'proposalId': 'p-1'}"],
    ['a record with a trailing comma', record('{"query":"a","query":"b",}')],
    ['a record over the byte ceiling', record(`{"q":"${'x'.repeat(1024 * 1024)}","q":1}`)],
    ['an array', '[{"proposalId":"p-1","proposalId":"p-2"}]'],
    ['a record without a runId', record('{"a":1,"a":2}', { runId: undefined })],
    ['a record whose requestId is empty', record('{"a":1,"a":2}', { requestId: '' })],
    ['a record whose runId is not a string', record('{"a":1,"a":2}', { runId: 7 })],
    [
      'a record whose proposalId is too long',
      record('{"a":1,"a":2}', { proposalId: 'p'.repeat(MAX_ANSWERED_ID_CHARS + 1) }),
    ],
    [
      'a record whose proposalId holds a lone surrogate',
      record('{"a":1}').replace('"p-1"', '"p-\\udc00"'),
    ],
  ])('leaves %s unanswered (quarantine only)', (_what, text) => {
    expect(refuseUnparsedProposal(text, unparsedFacts)).toBeUndefined();
  });

  it('reads an id of exactly the longest length', () => {
    const proposalId = 'p'.repeat(MAX_ANSWERED_ID_CHARS);
    expect(answer(record('{"a":1,"a":2}', { proposalId }))?.ids.proposalId).toBe(proposalId);
  });

  it('never throws, whatever the text', () => {
    for (const text of ['', '{', 'null', '"x"', '{"proposalId":{"toString":1}}', '\u0000']) {
      expect(() => refuseUnparsedProposal(text, unparsedFacts)).not.toThrow();
    }
  });
});
