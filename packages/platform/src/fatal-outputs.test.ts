import { describe, expect, it } from 'vitest';
import { generateOutputKeys } from './gate-keys.js';
import { fatalOutputs } from './fatal-outputs.js';
import { createGateOutputs } from './gate-outputs.js';
import { gateTopics } from './gate-topics.js';
import type { Incoming } from './stage-loop.js';

const outputs = createGateOutputs(
  gateTopics('ns.'),
  generateOutputKeys(),
  new Set(['acme', 'globex']),
);
const NOW = new Date('2026-12-02T01:00:00.000Z');
const ids = { proposalId: 'p-1', runId: 'run-1', requestId: 'req-1' };
const claimsOtherTenant = { ...ids, context: { tenant: 'globex' } };

const message = (
  topic: string,
  value: unknown,
  headers: Readonly<Record<string, string>> = {},
): Incoming => ({
  topic: `ns.toolgate.${topic}`,
  partition: 0,
  offset: '7',
  key: 'run-1',
  headers,
  value,
  raw: Buffer.from('{}'),
  receivedAt: NOW,
});

const fatal = (topic: string, value: unknown, headers?: Readonly<Record<string, string>>) =>
  fatalOutputs('execute', message(topic, value, headers), new TypeError('boom'), outputs, NOW);

const valuesOn = (topic: string, out: ReturnType<typeof fatal>) =>
  out.filter((o) => o.topic === `ns.toolgate.${topic}`).map((o) => ('value' in o ? o.value : o));

describe('fatalOutputs', () => {
  it("answers an envelope of the gate's own under its ids, its audit filed under its tenant", () => {
    const out = fatal('cleared', { ...ids, context: { tenant: 'acme' } });
    expect(valuesOn('observations.acme', out)).toMatchObject([
      { ...ids, outcome: 'rejected', stage: 'execution', code: 'internal_error' },
    ]);
    expect(valuesOn('audit', out)).toMatchObject([
      { kind: 'internal_error', ...ids, tenant: 'acme' },
    ]);
    expect(out.find((o) => o.topic === 'ns.toolgate.audit')?.key).toBe('acme');
  });

  it('answers a proposal under its ids where it asks, but takes no tenant from what it sent', () => {
    const out = fatal('proposals', claimsOtherTenant, { 'toolgate-reply-tenant': 'acme' });
    expect(valuesOn('observations.acme', out)).toMatchObject([{ ...ids, outcome: 'rejected' }]);
    expect(valuesOn('observations.globex', out)).toEqual([]);
    expect(valuesOn('audit', out)).toMatchObject([
      { kind: 'internal_error', ...ids, tenant: null },
    ]);
    expect(out.find((o) => o.topic === 'ns.toolgate.audit')?.key).toBe('-');
  });

  it.each(['results', 'approvals'])(
    'answers no proposal a %s record names: its call ends on its own, once',
    (topic) => {
      const out = fatal(topic, { commandId: 'cmd_1', ...claimsOtherTenant });
      expect(out.filter((o) => o.topic.includes('observations'))).toEqual([]);
      expect(valuesOn('audit', out)).toMatchObject([
        {
          kind: 'internal_error',
          proposalId: null,
          tenant: null,
          internalDetail: 'execute: TypeError: boom',
          source: { topic: `ns.toolgate.${topic}`, partition: 0, offset: '7' },
        },
      ]);
    },
  );
});

describe('fatalOutputs for a proposal that names no tenant to answer', () => {
  it('audits it and answers nowhere: no topic has readers who may see it', () => {
    const out = fatal('proposals', ids);
    expect(out.filter((o) => o.topic.includes('observations'))).toEqual([]);
    expect(valuesOn('audit', out)).toMatchObject([{ kind: 'internal_error', ...ids }]);
  });
});
