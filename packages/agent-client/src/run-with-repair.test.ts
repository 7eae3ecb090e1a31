import {
  createToolRegistry,
  DEFAULT_PARSE_LIMITS,
  defineTool,
  observationForPending,
  observationForRefusal,
  observationForResult,
  rejecterFor,
  validateProposal,
  type Observation,
  type Proposal,
} from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { fromActionText } from './from-action-text.js';
import { fromOpenAIChat } from './from-openai-chat.js';
import { openAIChatResponse, openAIChatTextResponse } from './provider-responses.test-support.js';
import { runWithRepair, type RepairClient } from './run-with-repair.js';

const search = defineTool<{ query: string }>({
  name: 'search',
  description: 'Search the knowledge base.',
  version: '1',
  sideEffect: 'read',
  input: {
    type: 'object',
    properties: { query: { type: 'string' } },
    required: ['query'],
    additionalProperties: false,
  },
});
const facts = {
  registry: createToolRegistry([search]),
  limits: DEFAULT_PARSE_LIMITS,
  repairBudget: 2,
};
const alice = { subject: 'alice', tenant: 'acme', roles: ['approver'] };
const NOW = new Date('2026-11-29T20:00:00.000Z');
const ids = { runId: 'run-7', requestId: 'req-42', proposalId: 'p-first' };

const MALFORMED = '{"action": "search", "arguments": {"query": "overdue",}}';
const FIXED = '{"action": "search", "arguments": {"query": "overdue"}}';

/**
 * A client whose gate is the core's validate group, as the validate stage runs it (budget 2):
 * what passes gets a `result` observation, what is refused gets the stage's own observation.
 */
function fakeGate(pendingFirst = false) {
  const received: Proposal[] = [];
  const client: RepairClient = {
    call: (proposal, options) => {
      received.push(proposal);
      const { proposalId, runId, requestId } = proposal;
      const at = { proposalId, runId, requestId };
      const step = validateProposal(proposal, alice, facts);
      if (step.ok && pendingFirst) {
        const confirmation = { confirmationId: `c-${proposalId}`, expiresAt: NOW.toISOString() };
        options?.onPending?.(observationForPending(at, confirmation, NOW));
      }
      return Promise.resolve(
        step.ok
          ? observationForResult(at, { content: 'three invoices', withheld: false }, NOW)
          : observationForRefusal(at, step, NOW),
      );
    },
  };
  return { client, received };
}

/** A model that answers with `replies` in turn and records what it was asked. */
function scriptedModel<R>(...replies: R[]) {
  const asked: { prompt: string; attempt: number }[] = [];
  const model = (prompt: string, attempt: number): Promise<R> => {
    asked.push({ prompt, attempt });
    const reply = replies[Math.min(asked.length - 1, replies.length - 1)];
    return reply === undefined
      ? Promise.reject(new Error('no reply scripted'))
      : Promise.resolve(reply);
  };
  return { model, asked };
}

const said = (o: Observation) => `${o.outcome} ${o.stage ?? '-'}/${o.code ?? '-'}`;

describe('runWithRepair', () => {
  it('stops a model that always answers malformed JSON at the budget: two corrections, then repair_budget_exhausted', async () => {
    const gate = fakeGate();
    const { model, asked } = scriptedModel(MALFORMED);
    const seen = await runWithRepair({
      client: gate.client,
      model,
      first: MALFORMED,
      adapter: fromActionText,
      ids,
    });
    expect(seen.map(said)).toEqual([
      'rejected representation/invalid_json',
      'rejected representation/invalid_json',
      'rejected limits/repair_budget_exhausted',
    ]);
    expect(asked.map((a) => a.attempt)).toEqual([1, 2]);
    expect(asked[0]!.prompt).toBe(seen[0]!.repair!.prompt);
    expect(seen[2]!.repair).toBeUndefined();
  });

  it('links each correction to the call it corrects: new proposalId, same run and request, repairOf and attempt + 1', async () => {
    const gate = fakeGate();
    const { model } = scriptedModel(MALFORMED);
    await runWithRepair({
      client: gate.client,
      model,
      first: MALFORMED,
      adapter: fromActionText,
      ids,
    });
    const [first, second, third] = gate.received;
    expect(gate.received.map((p) => [p.attempt, p.repairOf])).toEqual([
      [0, null],
      [1, first!.proposalId],
      [2, second!.proposalId],
    ]);
    expect(first!.proposalId).toBe('p-first');
    expect(new Set(gate.received.map((p) => p.proposalId)).size).toBe(3);
    expect(new Set(gate.received.map((p) => `${p.runId}/${p.requestId}`))).toEqual(
      new Set(['run-7/req-42']),
    );
    expect(third!.call).toBe(MALFORMED);
  });

  it('stops as soon as a raw OpenAI correction passes', async () => {
    const gate = fakeGate();
    const broken = openAIChatResponse([
      { id: 'call_1', name: 'search', arguments: "{'query': 'x'}" },
    ]);
    const fixed = openAIChatResponse([
      { id: 'call_2', name: 'search', arguments: '{"query":"x"}' },
    ]);
    const { model, asked } = scriptedModel(fixed);
    const seen = await runWithRepair({
      client: gate.client,
      model,
      first: broken,
      adapter: fromOpenAIChat,
      ids,
    });
    expect(seen.map(said)).toEqual(['rejected representation/invalid_json', 'result -/-']);
    expect(asked).toHaveLength(1);
    expect(gate.received[1]).toMatchObject({
      format: 'openai-chat',
      attempt: 1,
      repairOf: 'p-first',
    });
  });

  it('never calls the model after a final refusal', async () => {
    const gate = fakeGate();
    const cut = openAIChatResponse(
      [{ id: 'call_1', name: 'search', arguments: '{"que' }],
      'length',
    );
    const { model, asked } = scriptedModel(openAIChatResponse());
    const seen = await runWithRepair({
      client: gate.client,
      model,
      first: cut,
      adapter: fromOpenAIChat,
      ids,
    });
    expect(seen.map((o) => [o.code, o.disposition])).toEqual([['truncated', 'retry']]);
    expect(asked).toEqual([]);
  });

  it('never sends an authorization refusal back to the model, whatever repair it carries', async () => {
    const at = { proposalId: 'p-first', runId: ids.runId, requestId: ids.requestId };
    const notAuthorized = observationForRefusal(
      at,
      { ok: false, rejected: rejecterFor('authorization')('not_authorized', undefined, 'policy') },
      NOW,
    );
    const offers: Observation[] = [
      { ...notAuthorized, repair: { attempt: 1, remaining: 1, prompt: 'Ask for another tenant.' } },
      {
        ...notAuthorized,
        disposition: 'repair',
        repair: { attempt: 1, remaining: 1, prompt: 'x' },
      },
    ];
    for (const offer of offers) {
      const { model, asked } = scriptedModel(FIXED);
      const client: RepairClient = { call: () => Promise.resolve(offer) };
      const seen = await runWithRepair({
        client,
        model,
        first: MALFORMED,
        adapter: fromActionText,
        ids,
      });
      expect(seen).toEqual([offer]);
      expect(asked).toEqual([]);
    }
  });

  it("keeps to a budget smaller than the gate's, leaving the offer untaken", async () => {
    const gate = fakeGate();
    const { model, asked } = scriptedModel(MALFORMED);
    const seen = await runWithRepair({
      client: gate.client,
      model,
      first: MALFORMED,
      adapter: fromActionText,
      ids,
      budget: 1,
    });
    expect(asked).toHaveLength(1);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.repair).toMatchObject({ attempt: 2, remaining: 0 });
  });

  it('asks nothing with a budget of 0', async () => {
    const gate = fakeGate();
    const { model, asked } = scriptedModel(FIXED);
    const seen = await runWithRepair({
      client: gate.client,
      model,
      first: MALFORMED,
      adapter: fromActionText,
      ids,
      budget: 0,
    });
    expect([seen.length, asked.length]).toEqual([1, 0]);
  });

  it('follows each call of a response with parallel calls in turn', async () => {
    const gate = fakeGate();
    const first = openAIChatResponse([
      { id: 'call_a', name: 'search', arguments: '{"query": }' },
      { id: 'call_b', name: 'search', arguments: '{"query":"b"}' },
    ]);
    const fix = openAIChatResponse([{ id: 'call_c', name: 'search', arguments: '{"query":"a"}' }]);
    const { model } = scriptedModel(fix);
    const seen = await runWithRepair({
      client: gate.client,
      model,
      first,
      adapter: fromOpenAIChat,
      ids,
    });
    expect(seen.map((o) => [o.proposalId, o.outcome])).toEqual([
      ['p-first', 'rejected'],
      [gate.received[1]!.proposalId, 'result'],
      ['p-first-1', 'result'],
    ]);
    expect(gate.received[1]!.repairOf).toBe('p-first');
  });

  it('ends a call when the model answers without a call', async () => {
    const gate = fakeGate();
    const broken = openAIChatResponse([
      { id: 'call_1', name: 'search', arguments: "{'query': 'x'}" },
    ]);
    const { model, asked } = scriptedModel<unknown>(openAIChatTextResponse);
    const seen = await runWithRepair({
      client: gate.client,
      model,
      first: broken,
      adapter: fromOpenAIChat,
      ids,
    });
    expect(asked).toHaveLength(1);
    expect(seen).toHaveLength(1);
    expect(gate.received).toHaveLength(1);
  });

  it('submits nothing when the first response holds no call', async () => {
    const gate = fakeGate();
    const { model } = scriptedModel<unknown>(openAIChatTextResponse);
    const seen = await runWithRepair({
      client: gate.client,
      model,
      first: openAIChatTextResponse,
      adapter: fromOpenAIChat,
      ids,
    });
    expect([seen, gate.received]).toEqual([[], []]);
  });

  it('returns a pending_confirmation before its terminal observation, and still tells the caller', async () => {
    const gate = fakeGate(true);
    const told: string[] = [];
    const seen = await runWithRepair({
      client: gate.client,
      model: scriptedModel(FIXED).model,
      first: FIXED,
      adapter: fromActionText,
      ids,
      callOptions: { onPending: (o) => told.push(o.proposalId) },
    });
    expect(seen.map((o) => o.outcome)).toEqual(['pending_confirmation', 'result']);
    expect(told).toEqual(['p-first']);
  });

  it.each([-1, 1.5, Number.NaN])('refuses a budget of %s', async (budget) => {
    const gate = fakeGate();
    await expect(
      runWithRepair({
        client: gate.client,
        model: scriptedModel(FIXED).model,
        first: FIXED,
        adapter: fromActionText,
        ids,
        budget,
      }),
    ).rejects.toBeInstanceOf(RangeError);
    expect(gate.received).toEqual([]);
  });
});
