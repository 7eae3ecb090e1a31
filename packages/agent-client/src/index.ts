/**
 * `@toolgate/agent-client`: for agent developers. Submit proposals in any of the five formats
 * with the session token, await each one's terminal observation by proposalId, read raw OpenAI,
 * Anthropic and MCP payloads into proposals without reshaping them, and run the bounded repair
 * loop.
 */
export * from './agent-client-error.js';
export * from './from-action-text.js';
export * from './from-anthropic.js';
export * from './from-mcp.js';
export * from './from-openai-chat.js';
export * from './from-openai-responses.js';
export type { ProposalAdapter, ProposalIds } from './proposal-ids.js';
