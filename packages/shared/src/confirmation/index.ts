/** The confirmation rung: when a human must approve, what the approval binds to, and its checks. */
export {
  checkApproval,
  DEFAULT_CONFIRMATION_TTL_SECONDS,
  type ApprovalFacts,
  type PendingConfirmation,
} from './check-approval.js';
export { confirmationDigest, type DigestInput } from './confirmation-digest.js';
export { needsConfirmation } from './needs-confirmation.js';
