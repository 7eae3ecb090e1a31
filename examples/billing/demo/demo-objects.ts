/**
 * The objects one demo run changes: fresh copies of the example's invoices, payment and draft,
 * with the run's tag in their ids, so that every run starts from the same state (an invoice
 * approved by the last run is not open any more). The example's own objects (inv_481 …) are left
 * as they are for the CLI to explore; the demo only reads them.
 */
import type { ResolvedObject } from '@toolgate/shared';

/** The ids of one run's objects. */
export interface DemoObjectIds {
  /** acme, 1,200.00 EUR, open: approved without a person, then retried. */
  readonly smallInvoice: string;
  /** acme, 25,000.00 EUR, open: approved by a person. */
  readonly largeInvoice: string;
  /** acme, 25,000.00 EUR, open: its confirmation is left to expire. */
  readonly unansweredInvoice: string;
  /** globex, 800.00 EUR, open. */
  readonly globexInvoice: string;
  /** acme, 50.00 EUR, nothing refunded yet. */
  readonly payment: string;
  /** acme, an email draft. */
  readonly draft: string;
}

/** The ids and the objects to seed for the run tagged `tag` (lower-case letters and digits). */
export function demoObjects(tag: string): {
  readonly ids: DemoObjectIds;
  readonly objects: readonly ResolvedObject[];
} {
  const ids: DemoObjectIds = {
    smallInvoice: `inv_${tag}a`,
    largeInvoice: `inv_${tag}b`,
    unansweredInvoice: `inv_${tag}c`,
    globexInvoice: `inv_${tag}g`,
    payment: `pay_${tag}`,
    draft: `draft_${tag}`,
  };
  const objects: ResolvedObject[] = [
    invoice(ids.smallInvoice, 'acme', 120_000),
    invoice(ids.largeInvoice, 'acme', 2_500_000),
    invoice(ids.unansweredInvoice, 'acme', 2_500_000),
    invoice(ids.globexInvoice, 'globex', 80_000),
    {
      type: 'Payment',
      id: ids.payment,
      tenant: 'acme',
      version: 1,
      attributes: { amount_cents: 5_000, refunded_cents: 0, currency: 'EUR' },
    },
    {
      type: 'Draft',
      id: ids.draft,
      tenant: 'acme',
      version: 1,
      attributes: {
        to: ['ops@acme.example'],
        subject: 'Q3 report',
        body: 'Hello ops, the Q3 report is attached. Regards, Alice',
        sent: false,
      },
    },
  ];
  return { ids, objects };
}

function invoice(id: string, tenant: string, amountCents: number): ResolvedObject {
  return {
    type: 'Invoice',
    id,
    tenant,
    version: 1,
    attributes: { amount_cents: amountCents, currency: 'EUR', status: 'open' },
  };
}
