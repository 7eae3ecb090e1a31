/**
 * Can the confirm stage publish this confirmation request? Asked BEFORE the confirmation is
 * parked: a parked confirmation is listed, can be approved and then runs, so a request that the
 * codec would refuse only afterwards (when the stage's outputs are encoded, which then ends the
 * call as refused) must never be parked.
 */
import { accept, rejecterFor, type Decision } from '../decision.js';
import { parseJsonBounded, type ParseLimits } from '../representation/index.js';
import type { ConfirmationRequest } from './confirmation-request.js';
import type { MessageChecker } from './create-message-checker.js';

const reject = rejecterFor('confirmation');

/**
 * `invalid_card` when `request` breaks the confirmations topic's schema as `check` reads it (an
 * empty action, target or effect line), or would not read back within `limits` the way the codec
 * reads back what it writes (a lone surrogate, a `__proto__`, `constructor` or `prototype` key,
 * too deep, too large); else the request. The detail names the problem's place and rule, never
 * the card's text.
 */
export function checkConfirmationRequest(
  request: ConfirmationRequest,
  check: MessageChecker,
  limits: ParseLimits,
): Decision<ConfirmationRequest, 'confirmation'> {
  const about = `confirmation request ${request.confirmationId} of tool ${request.tool}`;
  const problems = check('confirmations', request);
  if (problems.length > 0) {
    return reject('invalid_card', undefined, `${about}: ${problems.join('; ')}`);
  }
  const readBack = parseJsonBounded(JSON.stringify(request), limits);
  if (!readBack.ok) {
    return reject('invalid_card', undefined, `${about} would not decode: ${readBack.code}`);
  }
  return accept(request);
}
