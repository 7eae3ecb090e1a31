/**
 * The example deployment's seed data: two tenants, their invoices, a draft and a payment. Money is
 * in integer cents. Every object starts at version 1; tools bump it when they change the object.
 */
import type { ResolvedObject } from '@toolgate/shared';

/** The example's users, as their sessions name them. */
export const USERS = {
  alice: { subject: 'alice', tenant: 'acme', roles: ['approver'] },
  bob: { subject: 'bob', tenant: 'acme', roles: ['viewer'] },
  carol: { subject: 'carol', tenant: 'globex', roles: ['approver'] },
} as const;

/** The example's objects: two tenants' invoices, payments and drafts. */
export const SEED_OBJECTS: readonly ResolvedObject[] = [
  invoice('inv_481', 'acme', 120_000, 'open'),
  invoice('inv_482', 'acme', 2_500_000, 'open'),
  invoice('inv_483', 'acme', 30_000, 'paid'),
  invoice('inv_900', 'globex', 80_000, 'open'),
  {
    type: 'Draft',
    id: 'draft_7',
    tenant: 'acme',
    version: 1,
    attributes: {
      to: ['ops@acme.example'],
      subject: 'Q3 report',
      body: 'Hello ops, the Q3 report is attached. Regards, Alice',
      sent: false,
    },
  },
  {
    type: 'Payment',
    id: 'pay_11',
    tenant: 'acme',
    version: 1,
    attributes: { amount_cents: 5_000, refunded_cents: 0, currency: 'EUR' },
  },
];

function invoice(id: string, tenant: string, amountCents: number, status: string): ResolvedObject {
  return {
    type: 'Invoice',
    id,
    tenant,
    version: 1,
    attributes: { amount_cents: amountCents, currency: 'EUR', status },
  };
}
