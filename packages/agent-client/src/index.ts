/**
 * `@toolgate/agent-client`: for agent developers. Submit proposals in any of the five formats
 * with the session token, await each one's terminal observation by proposalId, read raw OpenAI,
 * Anthropic and MCP payloads into proposals without reshaping them, and run the bounded repair
 * loop.
 */
export * from './agent-client-error.js';
export * from './agent-client.js';
export * from './client-settings.js';
export * from './from-action-text.js';
export * from './from-anthropic.js';
export * from './from-mcp.js';
export * from './from-openai-chat.js';
export * from './from-openai-responses.js';
export * from './is-observation.js';
export {
  DEFAULT_BUFFER_LIMIT,
  DEFAULT_OBSERVATION_TIMEOUT_MS,
  MAX_OBSERVATION_TIMEOUT_MS,
  type AwaitOptions,
} from './observation-router.js';
export type { ProposalAdapter, ProposalIds } from './proposal-ids.js';
export * from './run-with-repair.js';
