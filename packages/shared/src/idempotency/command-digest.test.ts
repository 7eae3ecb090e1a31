import { describe, expect, it } from 'vitest';
import { commandDigest, type CommandDigestInput } from './command-digest.js';

const base: CommandDigestInput = {
  tool: 'refund_payment',
  toolVersion: '1.2.0',
  args: { payment_id: 'pay_1', amount_cents: 500, note: { reason: 'damaged', tags: ['a', 'b'] } },
  objects: [{ type: 'payment', id: 'pay_1' }],
  tenant: 'acme',
};

describe('commandDigest', () => {
  it('does not depend on the key order of the arguments', () => {
    const reordered = {
      ...base,
      args: {
        note: { tags: ['a', 'b'], reason: 'damaged' },
        amount_cents: 500,
        payment_id: 'pay_1',
      },
    };
    expect(commandDigest(reordered)).toBe(commandDigest(base));
  });

  it('ignores object versions and attributes, so a replay after the object moved on is the same command', () => {
    const resolved = {
      ...base,
      objects: [{ type: 'payment', id: 'pay_1', version: 7, tenant: 'acme', attributes: { x: 1 } }],
    };
    expect(commandDigest(resolved)).toBe(commandDigest(base));
  });

  it.each([
    ['tool', { tool: 'refund_payments' }],
    ['tool version', { toolVersion: '1.3.0' }],
    ['an argument value', { args: { ...(base.args as object), amount_cents: 501 } }],
    ['a nested argument', { args: { ...(base.args as object), note: { reason: 'late' } } }],
    ['the object id', { objects: [{ type: 'payment', id: 'pay_2' }] }],
    ['the object type', { objects: [{ type: 'invoice', id: 'pay_1' }] }],
    ['the tenant', { tenant: 'globex' }],
  ])('changes when %s changes', (_what, change) => {
    expect(commandDigest({ ...base, ...change })).not.toBe(commandDigest(base));
  });

  it('keeps object order, which can carry meaning', () => {
    const a = { type: 'account', id: 'a' };
    const b = { type: 'account', id: 'b' };
    expect(commandDigest({ ...base, objects: [a, b] })).not.toBe(
      commandDigest({ ...base, objects: [b, a] }),
    );
  });

  it('is lowercase SHA-256 hex', () => {
    expect(commandDigest(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['NaN', Number.NaN],
    [
      'a cycle',
      (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
    ],
    ['a BigInt', 1n],
    ['a lone surrogate', '\udc00'],
  ])('throws a TypeError for arguments that are not JSON (%s)', (_what, args) => {
    expect(() => commandDigest({ ...base, args })).toThrow(TypeError);
  });
});
