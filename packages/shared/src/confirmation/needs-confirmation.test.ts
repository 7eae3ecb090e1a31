import { describe, expect, it } from 'vitest';
import type { ObjectsById, ToolSpec } from '../tool-spec.js';
import type { ResolvedObject } from '../types.js';
import { needsConfirmation } from './needs-confirmation.js';

const spec = (
  overrides: Partial<ToolSpec<{ amount_cents: number }>>,
): ToolSpec<{ amount_cents: number }> => ({
  name: 'refund_payment',
  description: 'Refunds part of a payment.',
  version: '1',
  sideEffect: 'write',
  input: { type: 'object', additionalProperties: false },
  ...overrides,
});
const none: ObjectsById = new Map();
const payment: ResolvedObject = {
  type: 'Payment',
  id: 'pay-7',
  tenant: 'acme',
  version: 1,
  attributes: { amountCents: 90_000 },
};

describe('needsConfirmation', () => {
  it('always asks for destructive tools, even when the tool says no', () => {
    expect(needsConfirmation(spec({ sideEffect: 'destructive' }), { amount_cents: 1 }, none)).toBe(
      true,
    );
    const optingOut = spec({ sideEffect: 'destructive', requiresConfirmation: () => false });
    expect(needsConfirmation(optingOut, { amount_cents: 1 }, none)).toBe(true);
  });

  it('does not ask for read or write tools by default', () => {
    expect(needsConfirmation(spec({ sideEffect: 'read' }), {}, none)).toBe(false);
    expect(needsConfirmation(spec({}), { amount_cents: 1 }, none)).toBe(false);
  });

  it("asks the tool's rule, with the arguments and the resolved objects", () => {
    const large = spec({
      requiresConfirmation: (args, objects) =>
        args.amount_cents > 10_000 || objects.get('pay-7')?.attributes['amountCents'] === 1,
    });
    expect(needsConfirmation(large, { amount_cents: 50_000 }, none)).toBe(true);
    expect(needsConfirmation(large, { amount_cents: 500 }, new Map([['pay-7', payment]]))).toBe(
      false,
    );
    const tiny = new Map([['pay-7', { ...payment, attributes: { amountCents: 1 } }]]);
    expect(needsConfirmation(large, { amount_cents: 500 }, tiny)).toBe(true);
  });
});
