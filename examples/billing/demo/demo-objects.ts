/**
 * The objects one demo run changes: fresh copies of the example's invoices, payment and draft,
 * with the run's tag in their ids, so that every run starts from the same state (an invoice
 * approved by the last run is not open any more; the walk-around aims its forged refunds at a
 * payment copy of its own). The example's own objects (inv_481 …) are left
 * as they are for the CLI to explore; the demo only reads them.
 */
import type { ResolvedObject } from '@toolgate/shared';
import { SEED_OBJECTS } from '../data.js';

/** The ids of one run's objects. */
export interface DemoObjectIds {
  /** acme, 1,200.00 EUR, open: approved without a person, then retried. */
  readonly smallInvoice: string;
  /** acme, 25,000.00 EUR, open: approved by a person. */
  readonly largeInvoice: string;
  /** acme, 25,000.00 EUR, open: its confirmation is left to expire. */
  readonly unansweredInvoice: string;
  /** acme, 25,000.00 EUR, open: after the script, its approval waits for a person in the console. */
  readonly consoleInvoice: string;
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
    consoleInvoice: `inv_${tag}d`,
    globexInvoice: `inv_${tag}g`,
    payment: `pay_${tag}`,
    draft: `draft_${tag}`,
  };
  const objects: ResolvedObject[] = [
    copyOf('inv_481', ids.smallInvoice),
    copyOf('inv_482', ids.largeInvoice),
    copyOf('inv_482', ids.unansweredInvoice),
    copyOf('inv_482', ids.consoleInvoice),
    copyOf('inv_900', ids.globexInvoice),
    copyOf('pay_11', ids.payment),
    copyOf('draft_7', ids.draft),
  ];
  return { ids, objects };
}

/** The example's seed object `seedId`, as it was seeded, under the id `id`. */
export function copyOf(seedId: string, id: string): ResolvedObject {
  const seed = SEED_OBJECTS.find((o) => o.id === seedId);
  if (seed === undefined) throw new Error(`the example has no seed object ${seedId}`);
  return { ...structuredClone(seed), id };
}
