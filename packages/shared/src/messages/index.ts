/**
 * The gate's messages: JSON Schemas of every topic's values, pure builders of observations, audit
 * events, envelopes and confirmation requests (checked before they are published), redaction, the
 * integrity tag of internal topics, the tool-key proofs of commands and results, and the signature
 * of observations.
 */
export * from './approval.js';
export * from './audit-event.js';
export * from './audit-facts.js';
export * from './audit-kinds.js';
export * from './check-confirmation-request.js';
export * from './check-integrity.js';
export * from './confirmation-request.js';
export * from './create-message-checker.js';
export * from './integrity-tag.js';
export * from './message-headers.js';
export * from './observations.js';
export * from './observation-signature.js';
export * from './pending-view.js';
export * from './redact-arguments.js';
export * from './replay-observation.js';
export * from './alert-schema.js';
export * from './schemas.js';
export * from './stage-envelope.js';
export * from './timeout-ending.js';
export * from './tool-proof.js';
export {
  MAX_REJECTION_REASON_CHARS,
  type AmendAnswer,
  type AmendBody,
  type CallerRights,
  type CardChange,
  type CardWithChanges,
  type DecidedOutcome,
  type DecidedView,
  type LiveCallView,
  type PendingView,
  type RejectBody,
} from './approval-views.js';
export {
  amendedProposal,
  amendedProposalId,
  amendReason,
  changesArguments,
  isAmendRejection,
  readAmendBody,
  type AmendNote,
  type ReadAmend,
} from './amend-call.js';
export {
  approvalEnding,
  decidedView,
  EXPIRED_ENDING,
  type ApprovalEndFacts,
  type DecidedEnding,
} from './decided-view.js';
