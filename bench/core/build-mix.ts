/**
 * The benchmark's traffic: a fixed, seeded sequence of proposals on the billing example, in all
 * five formats, shaped like an agent fleet's calls: mostly valid reads, some writes, some calls
 * that wait for a person, and refusals at several rungs. Every entry says what the ladder must
 * answer, so the run can check that it measures the paths it claims to.
 */
import type { Proposal, ProposalFormat } from '@toolgate/shared';
import {
  actionJson,
  anthropic,
  mcp,
  openaiChat,
  openaiResponses,
  type ProposalIds,
} from '../../examples/billing/fixtures/proposals.js';
import { seededRandom, type SeededRandom } from './seeded-random.js';

/** The example's users: alice approves at acme, bob only views at acme, carol approves at globex. */
export type UserName = 'alice' | 'bob' | 'carol';

/** What the ladder must decide for an entry. */
export type Expected =
  | { readonly kind: 'execute'; readonly replay: boolean }
  | { readonly kind: 'confirm' }
  | { readonly kind: 'refused'; readonly stage: string; readonly code: string };

/** The baseline's input: the text the model wrote for the arguments, and the tool it named. */
export type BaselineInput =
  | { readonly shape: 'arguments'; readonly tool: string; readonly text: string }
  /** The bare format: `{"action", "arguments"}` as one text (any fence already removed). */
  | { readonly shape: 'action'; readonly text: string };

/** One proposal of the mix. */
export interface MixEntry {
  /** The recipe that made it, e.g. `search` or `viewer_write`. */
  readonly label: Label;
  readonly group: Group;
  readonly user: UserName;
  /** The tool the model named (it may not exist: the `unknown_tool` recipe). */
  readonly tool: string;
  readonly proposal: Proposal;
  /** When it arrives, in milliseconds after the start of a pass over the mix. */
  readonly offsetMs: number;
  readonly expected: Expected;
  readonly baseline: BaselineInput;
}

/** Groups the report breaks latency down by. */
export const GROUPS = ['read', 'write', 'confirm', 'refusal'] as const;

/** One group. */
export type Group = (typeof GROUPS)[number];

type Args = Readonly<Record<string, unknown>>;

/** A call before it is dressed in a format: who, which tool, what arguments, what must happen. */
interface Draft {
  readonly user: UserName;
  readonly tool: string;
  /** An object, or (for the malformed recipe) the raw text the model wrote. */
  readonly args: Args | string;
  readonly expected: Expected;
  /** Formats the draft can be sent in; default all five. */
  readonly formats?: readonly ProposalFormat[];
}

const TEXT_FORMATS: readonly ProposalFormat[] = ['openai-chat', 'openai-responses', 'action-json'];
const ALL_FORMATS: readonly ProposalFormat[] = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'mcp',
  'action-json',
];

const QUERIES = [
  'open invoices',
  'refund policy',
  'invoices due this week',
  'payment terms for enterprise customers',
  'late fee rules',
  'how to dispute an invoice',
  'VAT on cross-border invoices',
  'Q3 revenue by region',
  'unpaid invoices older than 60 days',
  'who approves invoices over 10,000 EUR',
  'currency conversion rates used for billing',
  'credit note procedure',
];

const SENTENCES = [
  'Invoice inv_481 is open and due on 30 November.',
  'The refund policy allows partial refunds within 90 days.',
  'Two invoices are overdue; reminders were sent last Monday.',
  'Approvals above 10,000.00 EUR need a second person.',
  'The Q3 report is attached to draft_7, addressed to ops.',
  'No further action is needed on this account.',
];

const MALFORMED = [
  "{'query': 'open invoices'}",
  '{"query": "open invoices",}',
  '{query: "refund policy"}',
  '{"query": "late fees" "max_results": 3}',
  '{"query": "Q3 revenue", "max_results": 05}',
];

const UNKNOWN_TOOLS = ['delete_invoice', 'get_weather', 'search_invoices', 'send_mail', 'python'];

const execute: Expected = { kind: 'execute', replay: false };
const refused = (rung: string, code: string): Expected => ({ kind: 'refused', stage: rung, code });
const mf = refused('schema', 'missing_field');
const na = refused('authorization', 'not_authorized');
const reader = (r: SeededRandom): UserName => weighted(r, { alice: 5, bob: 3, carol: 2 });

const RECIPES = {
  search: {
    weight: 28,
    group: 'read',
    draft: (r: SeededRandom): Draft => ({
      user: reader(r),
      tool: 'search',
      args: r.chance(0.5)
        ? { query: r.pick(QUERIES), max_results: r.int(1, 20) }
        : { query: r.pick(QUERIES) },
      expected: execute,
    }),
  },
  calculate: {
    weight: 14,
    group: 'read',
    draft: (r: SeededRandom): Draft => ({
      user: reader(r),
      tool: 'calculate',
      args: {
        expression: r.chance(0.5)
          ? `${r.int(1, 99_999)} * 0.${r.int(1, 99)}`
          : `(${r.int(1, 9999)} + ${r.int(1, 9999)}) / ${r.int(1, 12)}`,
      },
      expected: execute,
    }),
  },
  final: {
    weight: 14,
    group: 'read',
    draft: (r: SeededRandom): Draft => ({
      user: reader(r),
      tool: 'final',
      args: { answer: Array.from({ length: r.int(1, 6) }, () => r.pick(SENTENCES)).join(' ') },
      expected: execute,
    }),
  },
  approve_small: {
    weight: 12,
    group: 'write',
    draft: (r: SeededRandom): Draft => {
      const carol = r.chance(0.4);
      const args = {
        invoice_id: carol ? 'inv_900' : 'inv_481',
        status: r.chance(0.8) ? 'approved' : 'rejected',
      };
      return {
        user: carol ? 'carol' : 'alice',
        tool: 'approve_invoice',
        args: r.chance(0.5) ? { ...args, reason: 'matches the purchase order' } : args,
        expected: execute,
      };
    },
  },
  // A client retry of an earlier write in the same pass: same request and call id, new proposal.
  write_retry: { weight: 2, group: 'write', draft: undefined },
  refund: {
    weight: 4,
    group: 'confirm',
    draft: (r: SeededRandom): Draft => ({
      user: 'alice',
      tool: 'refund_payment',
      args: { payment_id: 'pay_11', amount_cents: r.int(100, 5000) },
      expected: { kind: 'confirm' },
    }),
  },
  send_email: {
    weight: 4,
    group: 'confirm',
    draft: (): Draft => ({
      user: 'alice',
      tool: 'send_email',
      args: { draft_id: 'draft_7' },
      expected: { kind: 'confirm' },
    }),
  },
  malformed_json: {
    weight: 4,
    group: 'refusal',
    draft: (r: SeededRandom): Draft => ({
      user: reader(r),
      tool: 'search',
      args: r.pick(MALFORMED),
      expected: refused('representation', 'invalid_json'),
      formats: TEXT_FORMATS,
    }),
  },
  unknown_tool: {
    weight: 3,
    group: 'refusal',
    draft: (r: SeededRandom): Draft => ({
      user: reader(r),
      tool: r.pick(UNKNOWN_TOOLS),
      args: { query: r.pick(QUERIES) },
      expected: refused('schema', 'unknown_tool'),
    }),
  },
  missing_field: {
    weight: 3,
    group: 'refusal',
    draft: (r: SeededRandom): Draft =>
      r.pick<Draft>([
        { user: 'alice', tool: 'approve_invoice', args: { invoice_id: 'inv_481' }, expected: mf },
        { user: 'alice', tool: 'refund_payment', args: { payment_id: 'pay_11' }, expected: mf },
        { user: reader(r), tool: 'search', args: { max_results: 5 }, expected: mf },
      ]),
  },
  empty_query: {
    weight: 4,
    group: 'refusal',
    draft: (r: SeededRandom): Draft => ({
      user: reader(r),
      tool: 'search',
      args: { query: r.pick(['', '   ', '\n']), max_results: r.int(1, 20) },
      expected: refused('semantics', 'empty_query'),
    }),
  },
  other_tenant: {
    weight: 4,
    group: 'refusal',
    draft: (r: SeededRandom): Draft => {
      const alice = r.chance(0.7);
      return {
        user: alice ? 'alice' : 'carol',
        tool: 'approve_invoice',
        args: { invoice_id: alice ? 'inv_900' : 'inv_481', status: 'approved' },
        expected: refused('resolution', 'not_found'),
      };
    },
  },
  viewer_write: {
    weight: 4,
    group: 'refusal',
    draft: (r: SeededRandom): Draft =>
      r.chance(0.6)
        ? {
            user: 'bob',
            tool: 'approve_invoice',
            args: { invoice_id: 'inv_481', status: 'approved' },
            expected: na,
          }
        : { user: 'bob', tool: 'send_email', args: { draft_id: 'draft_7' }, expected: na },
  },
} as const;

/** The recipe names, i.e. the kinds of proposal in the mix. */
export type Label = keyof typeof RECIPES;

/** Each label's share of the mix, in percent. */
export const MIX_WEIGHTS: Readonly<Record<Label, number>> = Object.fromEntries(
  Object.entries(RECIPES).map(([label, recipe]) => [label, recipe.weight]),
) as Record<Label, number>;

/** Simulated time between two proposals of a pass: 50 proposals/s, under every tenant ceiling. */
export const ARRIVAL_INTERVAL_MS = 20;

/**
 * The repair budget the benchmarks' deployments set. The mix draws each run's calls at random, so
 * a run may refuse one tool's calls for repair more often than the default budget (2) between two
 * accepted ones, and the recipe expects each refusal's own code; the gate charges and checks the
 * budget in the same way whatever its size.
 */
export const MIX_REPAIR_BUDGET = 1_000;

/** Proposals per run: under the default ceiling of 50 calls per run. */
export const RUN_LENGTH = 10;

/** How the mix is drawn. */
export interface MixOptions {
  /** Number of proposals. */
  readonly size: number;
  /** Seed of the generator; the same seed gives the same mix. */
  readonly seed: number;
}

/** Builds the mix. Pure: the same options always give the same proposals. */
export function buildMix(options: MixOptions): MixEntry[] {
  const r = seededRandom(options.seed);
  const entries: MixEntry[] = [];
  let lastWrite: MixEntry | undefined;
  for (let index = 0; index < options.size; index += 1) {
    const label = weighted(r, MIX_WEIGHTS);
    const entry =
      label === 'write_retry' && lastWrite !== undefined
        ? retryOf(lastWrite, index)
        : fresh(label === 'write_retry' ? 'approve_small' : label, index, r);
    // The bare format's call id is its proposal id, so only the other formats can be retried.
    if (entry.label === 'approve_small' && entry.proposal.format !== 'action-json')
      lastWrite = entry;
    entries.push(entry);
  }
  return entries;
}

function fresh(label: Exclude<Label, 'write_retry'>, index: number, r: SeededRandom): MixEntry {
  const recipe = RECIPES[label];
  const draft = recipe.draft(r);
  const format = r.pick(draft.formats ?? ALL_FORMATS);
  const ids = idsOf(index);
  const { proposal, baseline } = dress(format, ids, draft, r.chance(1 / 3));
  return {
    label,
    group: recipe.group,
    user: draft.user,
    tool: draft.tool,
    proposal,
    offsetMs: index * ARRIVAL_INTERVAL_MS,
    expected: draft.expected,
    baseline,
  };
}

function idsOf(index: number): ProposalIds & { readonly callId: string } {
  const run = Math.floor(index / RUN_LENGTH);
  return {
    proposalId: `p-${index}`,
    runId: `run-${run}`,
    requestId: `req-${run}`,
    callId: `call-${index}`,
  };
}

function retryOf(original: MixEntry, index: number): MixEntry {
  const proposalId = `p-${index}`;
  return {
    ...original,
    label: 'write_retry',
    proposal: { ...original.proposal, proposalId },
    offsetMs: index * ARRIVAL_INTERVAL_MS,
    expected: { kind: 'execute', replay: true },
  };
}

/** The proposal in `format`, and the same call as the baseline reads it. */
function dress(
  format: ProposalFormat,
  ids: ProposalIds,
  draft: Draft,
  fence: boolean,
): { proposal: Proposal; baseline: BaselineInput } {
  const { tool, args } = draft;
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  const asArguments: BaselineInput = { shape: 'arguments', tool, text };
  switch (format) {
    case 'openai-chat':
      return { proposal: openaiChat(ids, tool, args), baseline: asArguments };
    case 'openai-responses':
      return { proposal: openaiResponses(ids, tool, args), baseline: asArguments };
    case 'anthropic':
      return { proposal: anthropic(ids, tool, objectArgs(args)), baseline: asArguments };
    case 'mcp':
      return { proposal: mcp(ids, tool, objectArgs(args)), baseline: asArguments };
    case 'action-json':
      return bareAction(ids, tool, text, fence);
  }
}

function bareAction(ids: ProposalIds, tool: string, argumentsText: string, fence: boolean) {
  const raw = `{"action":${JSON.stringify(tool)},"arguments":${argumentsText}}`;
  const proposal: Proposal = {
    ...actionJson(ids, tool, {}),
    call: fence ? `\`\`\`json\n${raw}\n\`\`\`` : raw,
  };
  return { proposal, baseline: { shape: 'action', text: raw } as const };
}

function objectArgs(args: Args | string): Args {
  if (typeof args === 'string') throw new TypeError('object formats carry no raw argument text');
  return args;
}

/** One key of `weights`, drawn with probability proportional to its weight. */
export function weighted<K extends string>(
  r: SeededRandom,
  weights: Readonly<Record<K, number>>,
): K {
  const entries = Object.entries(weights) as [K, number][];
  let ticket = r.next() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [key, weight] of entries) {
    ticket -= weight;
    if (ticket < 0) return key;
  }
  const last = entries.at(-1);
  if (last === undefined) throw new RangeError('weighted needs at least one weight');
  return last[0];
}
