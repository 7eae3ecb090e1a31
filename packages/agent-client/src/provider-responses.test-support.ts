/**
 * Provider responses shaped as the providers document them (OpenAI Chat Completions and Responses
 * API references, Anthropic Messages API tool-use guide, MCP 2025-06-18 `tools/call`), with the
 * example deployment's tools, and the core's representation rung to read what an adapter made.
 */
import {
  DEFAULT_PARSE_LIMITS,
  normalizeProposal,
  parseCall,
  type Decision,
  type ParsedCall,
} from '@toolgate/shared';

/** A Chat Completions response with two parallel tool calls. */
export function openAIChatResponse(
  calls: readonly { id: string; name: string; arguments: string }[] = [
    {
      id: 'call_62136354',
      name: 'search',
      arguments: '{"query":"overdue invoices","max_results":3}',
    },
    { id: 'call_62136355', name: 'calculate', arguments: '{"expression":"1200 * 0.2"}' },
  ],
  finishReason = 'tool_calls',
) {
  return {
    id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
    object: 'chat.completion',
    created: 1741570283,
    model: 'gpt-4o-2024-08-06',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: {
      prompt_tokens: 82,
      completion_tokens: 17,
      total_tokens: 99,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_fc9f1d7035',
  };
}

/** A Chat Completions response that answers in text, without a tool call. */
export const openAIChatTextResponse = {
  id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Hello! How can I assist you today?',
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 19, completion_tokens: 10, total_tokens: 29 },
  service_tier: 'default',
};

/** A Responses API response: a reasoning item, then one function call. */
export function openAIResponsesResponse(
  args = '{"query":"overdue invoices"}',
  status = 'completed',
) {
  return {
    id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
    object: 'response',
    created_at: 1741476542,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model: 'o4-mini-2025-04-16',
    output: [
      { id: 'rs_6820f383d7c08191846711c5df8233bc', type: 'reasoning', summary: [] },
      {
        type: 'function_call',
        id: 'fc_67ca09c6bedc8190a7abfec07b1a1332',
        call_id: 'call_unLAR8MvFNptuiZK6K6HCy5k',
        name: 'search',
        arguments: args,
        status,
      },
    ],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: 'medium', summary: null },
    store: true,
    temperature: 1.0,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1.0,
    truncation: 'disabled',
    usage: { input_tokens: 291, output_tokens: 23, total_tokens: 314 },
    user: null,
    metadata: {},
  };
}

/** An Anthropic Messages API response: a text block, then one tool_use block. */
export function anthropicMessage(
  input: unknown = { query: 'overdue invoices', max_results: 3 },
  stopReason = 'tool_use',
) {
  return {
    id: 'msg_01Aq9w938a90dw8q',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [
      { type: 'text', text: "I'll search the knowledge base for overdue invoices." },
      { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'search', input },
    ],
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: 384,
      output_tokens: 92,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

/** An MCP `tools/call` request. */
export const mcpToolsCall = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'search', arguments: { query: 'overdue invoices' } },
};

/** What the gate's representation rung makes of a proposal: the call it read, or its refusal. */
export function readByCore(proposal: unknown): Decision<ParsedCall, 'representation'> {
  const normalized = normalizeProposal(proposal, DEFAULT_PARSE_LIMITS);
  return normalized.ok ? parseCall(normalized.value.call, DEFAULT_PARSE_LIMITS) : normalized;
}
