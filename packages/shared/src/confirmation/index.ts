/** The confirmation rung: when a human must approve, what the approval binds to, and its checks. */
export {
  checkApproval,
  checkApprovalContent,
  DEFAULT_CONFIRMATION_TTL_SECONDS,
  type ApprovalContentFacts,
  type ApprovalFacts,
  type PendingConfirmation,
} from './check-approval.js';
export { checkParkedCall } from './check-parked-call.js';
export { confirmationTtlProblems, MAX_CONFIRMATION_TTL_SECONDS } from './confirmation-ttl.js';
export { confirmationDigest, type DigestInput } from './confirmation-digest.js';
export { needsConfirmation } from './needs-confirmation.js';
