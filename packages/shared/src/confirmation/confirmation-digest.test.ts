import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { confirmationDigest, type DigestInput } from './confirmation-digest.js';

const input: DigestInput = {
  tool: 'refund_payment',
  args: { payment_id: 'pay-7', amount_cents: 500, note: { reason: 'duplicate', lines: [1, 2] } },
  objects: [
    { type: 'Payment', id: 'pay-7', version: 4 },
    { type: 'Invoice', id: 'inv-1', version: 2 },
  ],
  preview: { amountCents: 500, currency: 'EUR' },
  tenant: 'acme',
  policyVersion: 'c'.repeat(64),
};

describe('confirmationDigest', () => {
  it('is sha256 hex over the RFC 8785 JSON of the input with objects sorted by type, id', () => {
    const expectedJson =
      '{"args":{"amount_cents":500,"note":{"lines":[1,2],"reason":"duplicate"},"payment_id":"pay-7"},' +
      '"objects":[{"id":"inv-1","type":"Invoice","version":2},{"id":"pay-7","type":"Payment","version":4}],' +
      `"policyVersion":"${'c'.repeat(64)}","preview":{"amountCents":500,"currency":"EUR"},"tenant":"acme","tool":"refund_payment"}`;
    expect(confirmationDigest(input)).toBe(createHash('sha256').update(expectedJson).digest('hex'));
  });

  it('is stable under key order and object order', () => {
    const reordered: DigestInput = {
      policyVersion: input.policyVersion,
      tenant: 'acme',
      preview: { currency: 'EUR', amountCents: 500 },
      objects: [
        { version: 2, id: 'inv-1', type: 'Invoice' },
        { id: 'pay-7', version: 4, type: 'Payment' },
      ],
      args: {
        note: { lines: [1, 2], reason: 'duplicate' },
        amount_cents: 500,
        payment_id: 'pay-7',
      },
      tool: 'refund_payment',
    };
    expect(confirmationDigest(reordered)).toBe(confirmationDigest(input));
  });

  it('ignores object members other than type, id and version', () => {
    const withExtras = {
      ...input,
      objects: input.objects.map((o) => ({ ...o, tenant: 'acme', attributes: { x: 1 } })),
    };
    expect(confirmationDigest(withExtras)).toBe(confirmationDigest(input));
  });

  it.each<[string, Partial<DigestInput>]>([
    ['tool', { tool: 'refund_payments' }],
    ['an argument value', { args: { ...(input.args as object), amount_cents: 501 } }],
    [
      'a nested argument',
      { args: { ...(input.args as object), note: { reason: 'duplicate', lines: [2, 1] } } },
    ],
    ['an added argument', { args: { ...(input.args as object), extra: null } }],
    [
      'an object version',
      {
        objects: [
          { type: 'Payment', id: 'pay-7', version: 5 },
          { type: 'Invoice', id: 'inv-1', version: 2 },
        ],
      },
    ],
    [
      'an object id',
      {
        objects: [
          { type: 'Payment', id: 'pay-8', version: 4 },
          { type: 'Invoice', id: 'inv-1', version: 2 },
        ],
      },
    ],
    [
      'an object type',
      {
        objects: [
          { type: 'Draft', id: 'pay-7', version: 4 },
          { type: 'Invoice', id: 'inv-1', version: 2 },
        ],
      },
    ],
    ['a missing object', { objects: [{ type: 'Payment', id: 'pay-7', version: 4 }] }],
    ['preview', { preview: { amountCents: 500, currency: 'USD' } }],
    ['tenant', { tenant: 'globex' }],
    ['policy version', { policyVersion: 'd'.repeat(64) }],
  ])('changes with %s', (_field, change) => {
    expect(confirmationDigest({ ...input, ...change })).not.toBe(confirmationDigest(input));
  });

  it('sorts objects by code units, not by locale', () => {
    const a = { type: 'T', id: 'a', version: 1 };
    const upper = { type: 'T', id: 'B', version: 1 };
    const json = canonicalize({ ...input, objects: [upper, a] });
    expect(confirmationDigest({ ...input, objects: [a, upper] })).toBe(
      createHash('sha256')
        .update(json ?? '')
        .digest('hex'),
    );
  });
});

/** A deterministic generator from a seed, so a shrunk counterexample replays exactly. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The same JSON value with every object's keys inserted in a random order (arrays keep theirs). */
function permuteKeys(value: unknown, next: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => permuteKeys(v, next));
  if (typeof value !== 'object' || value === null) return value;
  const entries = shuffled(Object.entries(value), next).map(
    ([k, v]) => [k, permuteKeys(v, next)] as const,
  );
  return Object.fromEntries(entries);
}

const objectRef = fc.record({
  type: fc.constantFrom('Invoice', 'Payment', 'Draft'),
  id: fc.string({ maxLength: 6 }),
  version: fc.nat(5),
});
const digestInput: fc.Arbitrary<DigestInput> = fc.record({
  tool: fc.constantFrom('approve_invoice', 'refund_payment'),
  args: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 })),
  objects: fc.uniqueArray(objectRef, { maxLength: 4, selector: (o) => `${o.type}\u0000${o.id}` }),
  preview: fc.jsonValue({ maxDepth: 3 }),
  tenant: fc.constantFrom('acme', 'globex'),
  policyVersion: fc.constantFrom('v1', 'v2'),
});

/** What the digest is meant to cover, canonically: objects reduced and order-free. */
const canonicalForm = (d: DigestInput) =>
  canonicalize({
    ...d,
    objects: [...d.objects].map((o) => `${o.type}\u0000${o.id}\u0000${o.version}`).sort(),
  });

/** The same input with every object's keys and the object list in a random order. */
const permuted = (d: DigestInput, next: () => number): DigestInput => ({
  ...(permuteKeys(d, next) as DigestInput),
  objects: shuffled(d.objects, next),
});

describe('confirmationDigest (property)', () => {
  it('is equal for any permutation of object keys and of the object list', () => {
    fc.assert(
      fc.property(digestInput, fc.integer(), (d, seed) => {
        expect(confirmationDigest(permuted(d, random(seed)))).toBe(confirmationDigest(d));
      }),
    );
  });

  it('is equal exactly when the canonical inputs are equal', () => {
    const pair = digestInput.chain((a) =>
      fc.oneof(
        fc.integer().map((seed) => [a, permuted(a, random(seed))] as const),
        digestInput.map((b) => [a, b] as const),
        fc
          .constantFrom<Partial<DigestInput>>(
            { tenant: 'initech' },
            { policyVersion: 'v3' },
            { preview: { changed: true } },
          )
          .map((change) => [a, { ...a, ...change }] as const),
      ),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(confirmationDigest(a) === confirmationDigest(b)).toBe(
          canonicalForm(a) === canonicalForm(b),
        );
      }),
    );
  });
});
