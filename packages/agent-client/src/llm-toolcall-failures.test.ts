/**
 * Real malformed tool calls quoted from public issue threads (the shared corpus, read in place),
 * wrapped in the provider responses they travelled in: the adapters must hand the gate each call
 * exactly as the model made it, so the gate reads it as it would read the call itself. An adapter
 * that repaired, parsed or dropped anything would change what the gate decides.
 */
import { readFileSync } from 'node:fs';
import { corpusPath } from '@toolgate/shared/corpora';
import type { Proposal } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { fromActionText } from './from-action-text.js';
import { fromAnthropic } from './from-anthropic.js';
import { fromOpenAIChat } from './from-openai-chat.js';
import { fromOpenAIResponses } from './from-openai-responses.js';
import {
  anthropicMessage,
  openAIChatResponse,
  openAIResponsesResponse,
  readByCore,
} from './provider-responses.test-support.js';

const CASES_FILE = corpusPath('llm-toolcall-failures', 'cases.json');

interface Case {
  readonly id: string;
  readonly channel: 'openai_message' | 'arguments_string' | 'arguments_object' | 'assistant_text';
  readonly raw: string;
  readonly category: string;
}

const { cases } = JSON.parse(readFileSync(CASES_FILE, 'utf8')) as { cases: readonly Case[] };
const ids = { runId: 'run-corpus', requestId: 'req-corpus', proposalId: 'p-corpus' };

/** One way a case reaches the gate: through an adapter, and the call the adapter must carry. */
interface Route {
  readonly adapter: string;
  readonly proposals: readonly Proposal[];
  /** The call exactly as the provider response held it. */
  readonly call: unknown;
}

function routesOf(c: Case): Route[] {
  switch (c.channel) {
    case 'arguments_string': {
      const chat = openAIChatResponse([{ id: 'call_corpus', name: 'some_tool', arguments: c.raw }]);
      const responses = openAIResponsesResponse(c.raw);
      return [
        route('openai-chat', fromOpenAIChat(chat, ids), chat.choices[0]!.message.tool_calls[0]),
        route('openai-responses', fromOpenAIResponses(responses, ids), responses.output[1]),
      ];
    }
    case 'openai_message': {
      const chat = openAIChatResponse([]);
      const item = { id: 'call_corpus', type: 'function', ...(JSON.parse(c.raw) as object) };
      const response = {
        ...chat,
        choices: [{ ...chat.choices[0]!, message: { tool_calls: [item] } }],
      };
      return [route('openai-chat', fromOpenAIChat(response, ids), item)];
    }
    case 'arguments_object': {
      const message = anthropicMessage(JSON.parse(c.raw));
      return [route('anthropic', fromAnthropic(message, ids), message.content[1])];
    }
    case 'assistant_text':
      return [route('action-json', fromActionText(c.raw, ids, 'stop'), c.raw)];
  }
}

function route(adapter: string, proposals: readonly Proposal[], call: unknown): Route {
  return { adapter, proposals, call };
}

/** The same call, in an envelope written by hand. */
function byHand(proposal: Proposal, call: unknown): Proposal {
  return { ...ids, format: proposal.format, finishReason: proposal.finishReason ?? null, call };
}

const rows = cases.flatMap((c) => routesOf(c).map((r) => ({ c, ...r })));

describe('the adapters on llm-toolcall-failures', () => {
  it('cover every case of the corpus through at least one provider response', () => {
    expect(new Set(rows.map((r) => r.c.id)).size).toBe(cases.length);
    expect(rows.length).toBeGreaterThan(cases.length);
  });

  it.each(rows.map((r) => [r.c.id, r.adapter, r] as const))(
    '%s via %s reaches the gate unchanged',
    (_, __, { proposals, call }) => {
      expect(proposals).toHaveLength(1);
      const [proposal] = proposals;
      expect(proposal!.call).toBe(call);
      expect(readByCore(proposal)).toEqual(readByCore(byHand(proposal!, call)));
    },
  );

  it('lets nothing through that the gate refuses: every malformed case is still refused', () => {
    const refusedByHand = rows.filter((r) => !readByCore(byHand(r.proposals[0]!, r.call)).ok);
    expect(refusedByHand.length).toBeGreaterThan(0);
    expect(refusedByHand.filter((r) => readByCore(r.proposals[0]).ok).map((r) => r.c.id)).toEqual(
      [],
    );
  });
});
