/** The answer to an approval that names no confirmation waiting under the approver's tenant. */
import { rejecterFor } from '../decision.js';
import { refusal, type Refusal } from './validated.js';

const reject = rejecterFor('confirmation');

/**
 * `state` is what the store holds under the approver's tenant for `confirmationId`: undefined
 * (never parked there, long gone, or another tenant's: reported alike) →
 * `unknown_confirmation`; any state but waiting (taken by an approval, swept at expiry, finished)
 * → `already_decided`. Either way nothing is taken and the approval is only audited.
 */
export function refuseUnavailableConfirmation(
  confirmationId: string,
  tenant: string,
  state: string | undefined,
): Refusal {
  const id = `confirmation ${confirmationId} under tenant ${tenant}`;
  if (state === undefined) return refusal(reject('unknown_confirmation', undefined, `no ${id}`));
  return refusal(reject('already_decided', undefined, `${id} is ${state}, not waiting`));
}
