/**
 * The representation rung: can the raw output be decoded, completely, within limits? Envelope and
 * format normalizers (`normalizeProposal`), then the arguments (`parseCall`), on the strict,
 * bounded parser (`parseJsonBounded`).
 */
export { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
export { parseJsonBounded } from './parse-json-bounded.js';
export { normalizeProposal, type NormalizedProposal } from './normalize-proposal.js';
export { MAX_PROPOSAL_ID_CHARS } from './check-envelope.js';
export { parseCall } from './parse-call.js';
export { completionOf } from './completion-of.js';
export { FORBIDDEN_KEYS } from './json-reader.js';
export { hasLoneSurrogate } from './json-string-literal.js';
export { findFence, type Fence } from './markdown-fence.js';
export type { NormalizerInput } from './call-shape.js';
export { normalizeOpenAiChat } from './normalize-openai-chat.js';
export { normalizeOpenAiResponses } from './normalize-openai-responses.js';
export { normalizeAnthropic } from './normalize-anthropic.js';
export { normalizeMcp } from './normalize-mcp.js';
export { normalizeActionJson } from './normalize-action-json.js';
