import { describe, expect, it } from 'vitest';
import { resolveTopic } from './topic-name.js';

describe('resolveTopic', () => {
  it('accepts short, catalogue and full names, under the prefix', () => {
    expect(resolveTopic('audit', '')).toBe('toolgate.audit');
    expect(resolveTopic('audit', 't1.')).toBe('t1.toolgate.audit');
    expect(resolveTopic('toolgate.observations', 't1.')).toBe('t1.toolgate.observations');
    expect(resolveTopic('t1.toolgate.confirmations', 't1.')).toBe('t1.toolgate.confirmations');
    expect(resolveTopic('commands.refund_payment', 't1.')).toBe(
      't1.toolgate.commands.refund_payment',
    );
    expect(resolveTopic('toolgate.commands.search', '')).toBe('toolgate.commands.search');
  });

  it('refuses names outside the catalogue with a usage error that lists the short names', () => {
    for (const bad of ['audits', 'commands.', 'commands.a b', 'toolgate.', '', 'other.audit']) {
      expect(() => resolveTopic(bad, 't1.'), bad).toThrow(
        expect.objectContaining({
          exitCode: 2,
          message: expect.stringContaining('one of proposals, validated') as string,
        }),
      );
    }
  });
});
