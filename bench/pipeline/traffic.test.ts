import { describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '@toolgate/shared';
import { buildMix } from '../core/build-mix.js';
import { EXAMPLE_TOOLS } from '@toolgate/platform';
import { relayTenantOf } from './child-config.js';
import {
  answers,
  decodeValue,
  outbound,
  outcomeOf,
  tenantOf,
  unattended,
  type TrafficFacts,
} from './traffic.js';

const facts: TrafficFacts = {
  mix: buildMix({ size: 50, seed: 7 }),
  tokens: { alice: 'tok-a', bob: 'tok-b', carol: 'tok-c' },
  inputTopic: { onehop: 'o.obs', relay: 'r.proposals', gate: 'g.proposals' },
};
const now = new Date('2026-11-29T12:00:00Z');

describe('unattended', () => {
  it('leaves out only the gate calls the mix sends for confirmation', () => {
    const mix = buildMix({ size: 500, seed: 20261129 });
    const f = { ...facts, mix };
    const gate = mix.map((_, n) => outbound(f, 'gate', 't', n, now));
    const confirmations = mix.filter((e) => e.expected.kind === 'confirm').length;
    expect(confirmations).toBeGreaterThan(0);
    expect(gate.filter((o) => !unattended(o))).toHaveLength(confirmations);
    expect(gate.filter((o) => !unattended(o)).every((o) => o.expected?.kind === 'confirm')).toBe(
      true,
    );
    const relay = mix.map((_, n) => outbound(f, 'relay', 't', n, now));
    expect(relay.every(unattended)).toBe(true);
  });
});

describe('outbound', () => {
  it('sends the gate the mix entry under ids unique to the repetition and the pass', () => {
    const first = outbound(facts, 'gate', 'sat0', 3, now);
    const again = outbound(facts, 'gate', 'sat0', 53, now);
    const entry = facts.mix[3]!;
    const sent = decodeValue(first.record.value)!;
    expect(first.id).toBe('g.sat0.3');
    expect(sent['proposalId']).toBe('g.sat0.3');
    expect(sent['runId']).toBe(`sat0.0.${entry.proposal.runId}`);
    expect(decodeValue(again.record.value)!['requestId']).toBe(
      `sat0.1.${entry.proposal.requestId}`,
    );
    expect(first.record).toMatchObject({ topic: 'g.proposals', key: sent['runId'] });
    expect(first.record.headers).toEqual({ [SESSION_HEADER]: facts.tokens[entry.user] });
    expect(first.expected).toEqual(entry.expected);
  });

  it('keeps a client retry on the request of the write it retries', () => {
    const mix = buildMix({ size: 500, seed: 20261129 });
    const i = mix.findIndex((e) => e.label === 'write_retry');
    const retry = mix[i]!;
    const j = mix.findIndex((e) => e.proposal.requestId === retry.proposal.requestId);
    const f = { ...facts, mix };
    const a = decodeValue(outbound(f, 'gate', 't', j, now).record.value)!;
    const b = decodeValue(outbound(f, 'gate', 't', i, now).record.value)!;
    expect(j).toBeLessThan(i);
    expect(b['requestId']).toBe(a['requestId']);
    expect(b['proposalId']).not.toBe(a['proposalId']);
  });

  it('gives the relay the same proposal with a valid echo command for hop4', () => {
    const out = outbound(facts, 'relay', 'sat1', 0, now);
    const value = decodeValue(out.record.value)!;
    const command = value['command'] as Record<string, unknown>;
    const tenant = tenantOf(facts.mix[0]!.user);
    expect(out.id).toBe('r.sat1.0');
    expect(command).toMatchObject({
      commandId: 'r.sat1.0',
      idempotencyKey: `${tenant}/r.sat1.0`,
      tool: facts.mix[0]!.tool,
      context: { tenant },
    });
    expect(command['deadline']).toBe('2026-11-29T12:02:00.000Z');
    expect(out.expected).toBeUndefined();
  });

  it("names in each relay command's idempotency key the tenant its observation goes to", () => {
    const mix = buildMix({ size: 500, seed: 20261129 });
    const commands = mix.map((_, n) => {
      const value = decodeValue(outbound({ ...facts, mix }, 'relay', 't', n, now).record.value)!;
      return value['command'] as { idempotencyKey: string; context: { tenant: string } };
    });
    for (const c of commands) expect(relayTenantOf(c.idempotencyKey)).toBe(c.context.tenant);
    expect(new Set(commands.map((c) => c.context.tenant))).toEqual(new Set(['acme', 'globex']));
  });

  it('sends each relay command to the tool the call names, as the gate would', () => {
    const mix = buildMix({ size: 500, seed: 20261129 });
    const tools = mix.map((_, n) => {
      const value = decodeValue(outbound({ ...facts, mix }, 'relay', 't', n, now).record.value)!;
      return (value['command'] as Record<string, unknown>)['tool'];
    });
    // Every tool of the deployment is used, and a call to a tool it lacks goes to the first.
    expect(new Set(tools)).toEqual(new Set(EXAMPLE_TOOLS));
    const unknown = mix.findIndex((e) => !(EXAMPLE_TOOLS as readonly string[]).includes(e.tool));
    expect(unknown).toBeGreaterThanOrEqual(0);
    expect(tools[unknown]).toBe(EXAMPLE_TOOLS[0]);
    const known = mix.findIndex((e) => e.tool === 'refund_payment');
    expect(tools[known]).toBe('refund_payment');
  });

  it('sends the one-hop baseline a result observation straight to the read topic', () => {
    const out = outbound(facts, 'onehop', 'x', 1, now);
    expect(out.record.topic).toBe('o.obs');
    expect(decodeValue(out.record.value)).toMatchObject({ proposalId: 'o.x.1', outcome: 'result' });
  });
});

describe('answers', () => {
  it('matches refusals on stage and code, executions and confirmations on a result', () => {
    const refused = { kind: 'refused', stage: 'schema', code: 'unknown_tool' } as const;
    expect(
      answers(refused, 'unknown_tool', {
        outcome: 'rejected',
        stage: 'schema',
        code: 'unknown_tool',
      }),
    ).toBe(true);
    expect(
      answers(refused, 'unknown_tool', {
        outcome: 'rejected',
        stage: 'schema',
        code: 'missing_field',
      }),
    ).toBe(false);
    expect(answers({ kind: 'confirm' }, 'refund', { outcome: 'result' })).toBe(true);
    expect(answers({ kind: 'execute', replay: false }, 'search', { outcome: 'rejected' })).toBe(
      false,
    );
  });

  it('accepts an in-flight refusal only for a client retry', () => {
    const retry = { kind: 'execute', replay: true } as const;
    const inFlight = { outcome: 'rejected', stage: 'idempotency', code: 'in_flight' };
    expect(answers(retry, 'write_retry', inFlight)).toBe(true);
    expect(answers(retry, 'approve_small', inFlight)).toBe(false);
  });
});

describe('decodeValue', () => {
  it('reads the registry wire format and plain JSON, and nothing from junk', () => {
    const body = Buffer.from('{"a":1}');
    expect(decodeValue(Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), body]))).toEqual({ a: 1 });
    expect(decodeValue(body)).toEqual({ a: 1 });
    expect(decodeValue(Buffer.from('nope'))).toBeUndefined();
    expect(decodeValue(Buffer.from('3'))).toBeUndefined();
    expect(decodeValue(null)).toBeUndefined();
  });
});

describe('outcomeOf', () => {
  it('names a result by its outcome and a refusal by its rung and code', () => {
    expect(outcomeOf({ outcome: 'result' })).toBe('result');
    expect(outcomeOf({ outcome: 'rejected', stage: 'limits', code: 'rate_limited' })).toBe(
      'rejected limits/rate_limited',
    );
    expect(outcomeOf({ outcome: 'rejected' })).toBe('rejected ?/?');
    expect(outcomeOf({})).toBe('?');
  });
});
