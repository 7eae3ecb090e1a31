import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_LIMITS } from '../representation/index.js';
import { createToolRegistry, defineTool } from '../tools/index.js';
import type { Proposal } from '../types.js';
import { validateProposal } from './validate-proposal.js';

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
