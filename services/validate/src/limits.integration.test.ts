/**
 * The call ceilings and the repair budget, kept by the validate stage where a call enters the
 * gate: every authenticated proposal counts, refused or not, and the repair budget is the gate's
 * count, not the agent's `attempt`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CEILINGS, type Deployment } from '@toolgate/shared';
import deployment, { NEVER_PUBLIC, USERS } from '../../../test/support/deployment/index.js';
import { openaiChat } from '../../../test/support/proposals.js';
import { expectNoLeak } from '../../../test/support/no-leak.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
  type Tapped,
} from '../../../test/support/gate-harness.js';
import * as validate from './service.js';

const ceilings = {
  callsPerRun: 5,
  callsPerUserPerSecond: 3,
  callsPerTenantPerSecond: 1_000,
  repairAttempts: 2,
};
const limited: Deployment = { ...deployment, ceilings };

let h: GateHarness;
beforeAll(async () => {
  h = await startGateHarness({
    label: 'validate-limits',
    modules: [validate],
    deployment: limited,
  });
});
afterAll(() => h?.close());

/** What validate did with each of `ids`: the validated envelope, or the refusal's observation. */
async function outcomes(what: string, ids: readonly string[]): Promise<Map<string, Tapped>> {
  const wanted = new Set(ids);
  const answered = (r: Tapped) => wanted.has(String(r.value['proposalId']));
  const found = new Map<string, Tapped>();
  const deadline = Date.now() + 30_000;
  while (found.size < ids.length) {
    for (const short of ['validated', 'observations']) {
      for (const r of h.seen(short).filter(answered)) {
        const id = String(r.value['proposalId']);
        if (found.has(id)) throw new Error(`${id} was answered twice`);
        found.set(id, r);
      }
    }
    if (found.size >= ids.length) break;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    found.clear();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return found;
}

const codeOf = (r: Tapped | undefined) =>
  r === undefined ? 'none' : r.topic.endsWith('.validated') ? 'validated' : String(r.value['code']);

async function auditDetailOf(proposalId: string): Promise<string> {
  const [event] = await h.waitFor(
    'audit',
    `the audit event of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId,
  );
  return String(event!.value['internalDetail']);
}

describe('the validate stage counting every authenticated proposal', () => {
  it('counts proposals it refuses toward the run limit: a run of malformed calls meets run_call_limit', async () => {
    const alice = await h.session(USERS.alice);
    const runId = 'run-malformed';
    const ids = Array.from({ length: 8 }, (_, i) => `p-malformed-${i + 1}`);
    for (const proposalId of ids) {
      // Cut short: refused with `truncated` (retry), never offered for repair.
      const cut = openaiChat({ proposalId, runId }, 'lookup', '{"query":');
      await h.send('proposals', runId, cut, sessionHeaders(alice));
    }
    const seen = await outcomes('the answers to the malformed run', ids);
    const codes = ids.map((id) => codeOf(seen.get(id)));
    // The first five are within the run (sent at once, some may meet alice's rate of 3 a second).
    for (const code of codes.slice(0, ceilings.callsPerRun)) {
      expect(['truncated', 'rate_limited']).toContain(code);
    }
    expect(codes.slice(ceilings.callsPerRun)).toEqual(Array(3).fill('run_call_limit'));
    expect(await auditDetailOf('p-malformed-6')).toContain('calls in run 6 > ceiling 5');
    const refused = seen.get('p-malformed-6')!.value;
    expect(refused).toMatchObject({ stage: 'limits', disposition: 'deny' });
    expectNoLeak(refused, NEVER_PUBLIC);
  });

  it('limits a user over its own rate and not another user of the same tenant', async () => {
    const [alice, bob] = [await h.session(USERS.alice), await h.session(USERS.bob)];
    const aliceIds = Array.from({ length: 12 }, (_, i) => `p-alice-${i + 1}`);
    const bobIds = ['p-bob-1', 'p-bob-2'];
    for (const [i, proposalId] of aliceIds.entries()) {
      const runId = `run-alice-${i}`;
      const call = openaiChat({ proposalId, runId }, 'lookup', { query: 'x' });
      await h.send('proposals', runId, call, sessionHeaders(alice));
      const bobId = bobIds[i];
      if (bobId !== undefined) {
        const bobCall = openaiChat({ proposalId: bobId, runId: `run-${bobId}` }, 'lookup', {
          query: 'y',
        });
        await h.send('proposals', `run-${bobId}`, bobCall, sessionHeaders(bob));
      }
    }
    const seen = await outcomes('the answers to both users', [...aliceIds, ...bobIds]);
    const limitedIds = aliceIds.filter((id) => codeOf(seen.get(id)) === 'rate_limited');
    expect(limitedIds.length).toBeGreaterThan(0);
    expect(
      aliceIds.every((id) => ['validated', 'rate_limited'].includes(codeOf(seen.get(id)))),
    ).toBe(true);
    expect(bobIds.map((id) => codeOf(seen.get(id)))).toEqual(['validated', 'validated']);
    expect(await auditDetailOf(limitedIds[0]!)).toMatch(/^user calls this second \d+ > ceiling 3$/);
    expect(seen.get(limitedIds[0]!)!.value).toMatchObject({
      stage: 'limits',
      disposition: 'retry',
    });
  });
});

describe('the validate stage keeping the repair budget itself', () => {
  let g: GateHarness;
  beforeAll(async () => {
    const budgeted = {
      ...deployment,
      ceilings: { callsPerRun: 100, callsPerUserPerSecond: 1_000, callsPerTenantPerSecond: 1_000 },
    };
    g = await startGateHarness({
      label: 'validate-repairs',
      modules: [validate],
      deployment: budgeted,
    });
  });
  afterAll(() => g?.close());

  it('offers at most the budget of repairs to sixty malformed calls that each claim attempt 0', async () => {
    const alice = await g.session(USERS.alice);
    const runId = 'run-repairs';
    const ids = Array.from({ length: 60 }, (_, i) => `p-repair-${i + 1}`);
    for (const proposalId of ids) {
      // No `query`: refused at schema with a repair offer, as long as the budget lasts.
      const missing = openaiChat({ proposalId, runId, attempt: 0 }, 'lookup', {});
      await g.send('proposals', runId, missing, sessionHeaders(alice));
    }
    const answers = await g.waitFor(
      'observations',
      'the answers to the sixty malformed calls',
      (r) => r.value['runId'] === runId,
      ids.length,
    );
    const byId = new Map(answers.map((r) => [String(r.value['proposalId']), r.value]));
    const offers = ids.filter((id) => byId.get(id)?.['repair'] !== undefined);
    expect(offers).toEqual(ids.slice(0, DEFAULT_CEILINGS.repairAttempts));
    expect(offers.map((id) => byId.get(id)?.['repair'])).toMatchObject([
      { attempt: 1, remaining: 1 },
      { attempt: 2, remaining: 0 },
    ]);
    for (const id of ids.slice(DEFAULT_CEILINGS.repairAttempts)) {
      expect(byId.get(id)).toMatchObject({ stage: 'limits', code: 'repair_budget_exhausted' });
    }
    expect(g.seen('validated').filter((r) => r.value['runId'] === runId)).toEqual([]);
  });

  it('starts a fresh budget for a tool once a call of it is accepted, and none for a new bogus name', async () => {
    const alice = await g.session(USERS.alice);
    const runId = 'run-chains';
    const sent: [string, string, Record<string, unknown>][] = [
      ['p-chain-1', 'lookup', {}],
      ['p-chain-2', 'lookup', {}],
      ['p-chain-3', 'lookup', { query: 'x' }],
      ['p-chain-4', 'lookup', {}],
      ['p-chain-5', 'no_such_tool_a', { query: 'x' }],
      ['p-chain-6', 'no_such_tool_b', { query: 'x' }],
      ['p-chain-7', 'no_such_tool_c', { query: 'x' }],
    ];
    for (const [proposalId, tool, args] of sent) {
      const call = openaiChat({ proposalId, runId, attempt: 0 }, tool, args);
      await g.send('proposals', runId, call, sessionHeaders(alice));
    }
    await g.waitFor(
      'observations',
      'the answers of the chains',
      (r) => r.value['runId'] === runId,
      6,
    );
    const answer = (id: string) =>
      g.seen('observations').find((r) => r.value['proposalId'] === id)?.value;
    expect(answer('p-chain-4')).toMatchObject({ code: 'missing_field', repair: { attempt: 1 } });
    expect(answer('p-chain-5')).toMatchObject({ code: 'unknown_tool', repair: { attempt: 1 } });
    expect(answer('p-chain-6')).toMatchObject({ code: 'unknown_tool', repair: { attempt: 2 } });
    expect(answer('p-chain-7')).toMatchObject({ code: 'repair_budget_exhausted' });
  });
});
