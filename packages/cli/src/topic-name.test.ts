import { describe, expect, it } from 'vitest';
import { readerGroupPrefix, resolveTopic } from './topic-name.js';

describe('resolveTopic', () => {
  it('accepts short, catalogue and full names, under the prefix', () => {
    expect(resolveTopic('audit', '')).toBe('toolgate.audit');
    expect(resolveTopic('audit', 't1.')).toBe('t1.toolgate.audit');
    expect(resolveTopic('toolgate.results', 't1.')).toBe('t1.toolgate.results');
    expect(resolveTopic('t1.toolgate.confirmations', 't1.')).toBe('t1.toolgate.confirmations');
    expect(resolveTopic('commands.refund_payment', 't1.')).toBe(
      't1.toolgate.commands.refund_payment',
    );
    expect(resolveTopic('toolgate.commands.search', '')).toBe('toolgate.commands.search');
  });

  it("names a tenant's observations topic, in each of the three forms", () => {
    expect(resolveTopic('observations.acme', '')).toBe('toolgate.observations.acme');
    expect(resolveTopic('observations.acme', 't1.')).toBe('t1.toolgate.observations.acme');
    expect(resolveTopic('toolgate.observations.globex', 't1.')).toBe(
      't1.toolgate.observations.globex',
    );
    expect(resolveTopic('t1.toolgate.observations.acme', 't1.')).toBe(
      't1.toolgate.observations.acme',
    );
  });

  it('refuses names outside the catalogue with a usage error that lists the short names', () => {
    for (const bad of ['audits', 'commands.', 'commands.a b', 'toolgate.', '', 'other.audit']) {
      expect(() => resolveTopic(bad, 't1.'), bad).toThrow(
        expect.objectContaining({
          exitCode: 2,
          message: expect.stringContaining(
            'one of proposals, validated, authorized, cleared, confirmations, approvals, results, audit, quarantine, refusal-stats, alerts, analytics-state, commands.<tool>, observations.<tenant>',
          ) as string,
        }),
      );
    }
  });

  it('no longer offers the plain observations topic: observations are per tenant', () => {
    for (const plain of [
      'observations',
      'toolgate.observations',
      'observations.',
      'observations.a b',
    ])
      expect(() => resolveTopic(plain, ''), plain).toThrow(
        expect.objectContaining({
          exitCode: 2,
          message: expect.stringContaining('observations.<tenant>') as string,
        }),
      );
    expect(() => resolveTopic('observations', '')).toThrow(/observations are per tenant/);
  });
});

describe('readerGroupPrefix', () => {
  const prefixes = { topicPrefix: 't1.', groupPrefix: 'g1.' };

  it("reads each record topic in a group its reader's ACLs grant", () => {
    expect(readerGroupPrefix('observations.acme', prefixes)).toBe('g1.toolgate.agent.acme.');
    expect(readerGroupPrefix('t1.toolgate.observations.globex', prefixes)).toBe(
      'g1.toolgate.agent.globex.',
    );
    expect(readerGroupPrefix('audit', prefixes)).toBe('g1.toolgate.analytics.');
    expect(readerGroupPrefix('confirmations', prefixes)).toBe('g1.toolgate.console.');
    expect(readerGroupPrefix('audit', { topicPrefix: '', groupPrefix: '' })).toBe(
      'toolgate.analytics.',
    );
  });

  it('reads pipeline topics under the plain group prefix, as an administrator', () => {
    expect(readerGroupPrefix('proposals', prefixes)).toBe('g1.');
    expect(readerGroupPrefix('commands.search', prefixes)).toBe('g1.');
  });
});
