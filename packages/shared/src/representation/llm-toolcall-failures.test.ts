/**
 * Real malformed tool calls quoted from public issue threads, read in place from the shared
 * corpora. Each case is fed through the format its `channel` names, and its expected outcome is
 * derived from its own `category` (and `channel`), never listed by id, so a new case with a known
 * category is checked without editing this file and one with a new category fails until decided.
 */
import { readFileSync } from 'node:fs';
import { corpusPath } from '../corpora.test-support.js';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../decision.js';
import type { ParsedCall } from '../types.js';
import { normalizeProposal } from './normalize-proposal.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { parseCall } from './parse-call.js';

const CASES_FILE = corpusPath('llm-toolcall-failures', 'cases.json');

interface Case {
  readonly id: string;
  readonly channel: 'openai_message' | 'arguments_string' | 'arguments_object' | 'assistant_text';
  readonly raw: string;
  readonly category: string;
}

interface Corpus {
  readonly cases: readonly Case[];
  readonly citations_without_full_raw: readonly { readonly fragment: string | null }[];
}

const corpus = JSON.parse(readFileSync(CASES_FILE, 'utf8')) as Corpus;
const L = DEFAULT_PARSE_LIMITS;

/** What the representation rung must do with a case. */
type Expectation =
  | { readonly outcome: 'repaired' }
  | { readonly outcome: 'passes' }
  | { readonly outcome: 'refused'; readonly code: string; readonly disposition: string };

const refused = (code: string, disposition = 'repair'): Expectation => ({
  outcome: 'refused',
  code,
  disposition,
});

/**
 * The design's answer per category: the fence is the only repair; truncation is retried; text
 * that is not one JSON value is refused for repair; a string where the object belongs is not
 * unwrapped; fields and tools are the schema rung's business, so they pass this rung unchanged.
 */
function expectationFor(c: Case): Expectation | undefined {
  switch (c.category) {
    case 'markdown_fence':
      return { outcome: 'repaired' };
    case 'truncated':
      return refused('truncated', 'retry');
    case 'trailing_garbage':
    case 'trailing_comma':
    case 'non_json_expression':
    case 'stray_escape':
    case 'python_literal':
    case 'pythonic_syntax':
    case 'empty':
      return refused('invalid_json');
    case 'double_encoded':
      // A whole-arguments string is not an object; a nested string is only wrong for a schema
      // that wants an array there, which this rung does not know, so it stays a string.
      return c.channel === 'arguments_object' ? { outcome: 'passes' } : refused('not_an_object');
    case 'unknown_field':
      return { outcome: 'passes' };
    case 'valid_control':
    case 'unknown_tool':
      // As written (tags, a transcript line) the text is no call format; see the tests below for
      // the same call in a provider's form.
      return refused('invalid_json');
    default:
      return undefined;
  }
}

/** Both halves of the rung, as the validate stage runs them. */
function represent(proposal: unknown): Decision<ParsedCall, 'representation'> {
  const n = normalizeProposal(proposal, L);
  return n.ok ? parseCall(n.value.call, L) : n;
}

const envelope = (format: string, finishReason: string, call: unknown) => ({
  proposalId: 'p-corpus',
  runId: 'run-corpus',
  requestId: 'req-corpus',
  format,
  finishReason,
  call,
});

/** An OpenAI tool call; the id and type are the harness's, since excerpts leave them out. */
const chatCall = (name: string, args: string) => ({
  id: 'call_corpus',
  type: 'function',
  function: { name, arguments: args },
});

/** The case submitted the way its channel says it travelled. */
function proposalsFor(c: Case): unknown[] {
  switch (c.channel) {
    case 'openai_message':
      return [envelope('openai-chat', 'tool_calls', { ...chatCall('', ''), ...parsed(c.raw) })];
    case 'arguments_string':
      // finish_reason as a router would report it: the structure alone must reveal truncation.
      return [envelope('openai-chat', 'tool_calls', chatCall('some_tool', c.raw))];
    case 'arguments_object': {
      const input = parsed(c.raw);
      return [
        envelope('anthropic', 'tool_use', { type: 'tool_use', id: 'toolu_c', name: 't', input }),
        envelope('mcp', 'tool_use', {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 't', arguments: input },
        }),
      ];
    }
    case 'assistant_text':
      return [envelope('action-json', 'stop', c.raw)];
  }
}

function parsed(raw: string): Record<string, unknown> {
  return JSON.parse(raw) as Record<string, unknown>;
}

function outcomeOf(d: Decision<ParsedCall, 'representation'>): string {
  if (!d.ok) return `refused ${d.code}/${d.disposition}`;
  return d.value.repaired === undefined ? 'passes' : 'repaired';
}

function expectedOutcome(e: Expectation): string {
  return e.outcome === 'refused' ? `refused ${e.code}/${e.disposition}` : e.outcome;
}

describe('the representation rung on llm-toolcall-failures', () => {
  const rows = corpus.cases.map((c) => ({
    c,
    expected: expectationFor(c),
    actual: proposalsFor(c).map((p) => outcomeOf(represent(p))),
  }));
  const counts: Record<string, number> = {};
  for (const { actual } of rows)
    counts[actual[0] ?? 'none'] = (counts[actual[0] ?? 'none'] ?? 0) + 1;
  console.info(`llm-toolcall-failures: ${String(rows.length)} cases`, counts);

  it('has an expectation for every category in the corpus', () => {
    expect(rows.filter((r) => r.expected === undefined).map((r) => r.c.category)).toEqual([]);
  });

  it.each(rows.map((r) => [r.c.id, r.c.category, r.c.channel, r] as const))(
    '%s (%s via %s) is handled as the design says',
    (_, __, ___, { expected, actual }) => {
      if (expected === undefined) return;
      for (const outcome of actual) expect(outcome).toBe(expectedOutcome(expected));
    },
  );

  it('records the figures: 2 repaired, 1 retried, 14 refused for repair, 4 passed on', () => {
    expect(counts).toEqual({
      repaired: 2,
      'refused truncated/retry': 1,
      'refused invalid_json/repair': 13,
      'refused not_an_object/repair': 1,
      passes: 4,
    });
  });

  it('recovers the fenced arguments exactly, with nothing invented', () => {
    const c = corpus.cases.find(
      (x) => x.category === 'markdown_fence' && x.channel === 'arguments_string',
    );
    const d = represent(proposalsFor(c as Case)[0]);
    expect(d.ok && d.value.args).toEqual({ file_path: '/home/zlaw/test.py' });
  });

  it('never turns the trailing-comma text into a call, to "seconds" or anything else', () => {
    for (const c of corpus.cases.filter((x) => x.category === 'trailing_comma')) {
      expect(represent(proposalsFor(c)[0]).ok).toBe(false);
    }
  });

  it('keeps the apostrophe of the valid control intact once the call arrives in a provider form', () => {
    const c = corpus.cases.find((x) => x.category === 'valid_control') as Case;
    const inner = parsed(c.raw.replace(/^<tool_call>/, '').replace(/<\/tool_call>$/, ''));
    const call = chatCall(inner['name'] as string, JSON.stringify(inner['arguments']));
    const d = represent(envelope('openai-chat', 'tool_calls', call));
    expect(d.ok && d.value).toEqual({
      callId: 'call_corpus',
      tool: 'web_search',
      args: { query: "what's the weather" },
    });
  });

  it('passes an invented tool on, in a provider form, for the schema rung to refuse', () => {
    const c = corpus.cases.find((x) => x.category === 'unknown_tool') as Case;
    const [name, args] = [c.raw.slice(0, c.raw.indexOf(':')), c.raw.slice(c.raw.indexOf(':') + 1)];
    const d = represent(envelope('openai-chat', 'tool_calls', chatCall(name, args.trim())));
    expect(d.ok && d.value.tool).toBe('execute_python');
  });

  it('leaves a double-encoded nested value a string: nothing is unwrapped', () => {
    const c = corpus.cases.find((x) => x.id === 'double-encoded-nested-array') as Case;
    const d = represent(proposalsFor(c)[0]);
    expect(d.ok && typeof d.value.args['edits']).toBe('string');
  });

  it('refuses every quoted fragment of the citations used as an arguments string', () => {
    const fragments = corpus.citations_without_full_raw.flatMap((x) => x.fragment ?? []);
    expect(fragments.length).toBeGreaterThan(0);
    for (const fragment of fragments) {
      expect(represent(envelope('openai-chat', 'stop', chatCall('t', fragment))).ok).toBe(false);
    }
  });
});
