/** The authorization rung (Cedar): policies in, allow / deny / fail-closed decisions out. */
export { authorizeApproval } from './authorize-approval.js';
export { authorizeCall, NOT_ALLOWED, type AuthzRequest } from './authorize-call.js';
export { NAMESPACE, RESERVED_ACTIONS, RESERVED_TYPES } from './cedar-entities.js';
export { MAX_ATTRIBUTE_DEPTH } from './cedar-values.js';
export { mayCallTool } from './may-call-tool.js';
export {
  loadPolicySet,
  policySetVersion,
  SCHEMA_SUFFIX,
  type PolicySet,
  type PolicySource,
} from './policy-set.js';
