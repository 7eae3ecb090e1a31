/**
 * The example's `search` tool: a tiny built-in knowledge base about the billing world, searched
 * by word overlap. Entries about one tenant's objects are found only by that tenant's callers, so
 * a search never names another tenant's invoices. Pure and deterministic: the same query and
 * tenant always give the same snippets, in the same order.
 */

/** One entry of the knowledge base; `tenant` is absent for entries everyone may read. */
export interface KnowledgeEntry {
  readonly id: string;
  readonly tenant?: string;
  readonly title: string;
  readonly text: string;
}

/** One search hit as the tool reports it. */
export interface SearchHit {
  readonly id: string;
  readonly title: string;
  readonly snippet: string;
}

/** Results when the call does not say how many. */
export const DEFAULT_MAX_RESULTS = 5;

/** The knowledge base: how the billing world works, and what each tenant's objects are. */
export const KNOWLEDGE_BASE: readonly KnowledgeEntry[] = [
  {
    id: 'kb-approvals',
    title: 'How invoice approval works',
    text: 'An open invoice can be approved or rejected. Invoices of 10,000.00 EUR or more need a person with the approver role to confirm the change.',
  },
  {
    id: 'kb-statuses',
    title: 'Invoice statuses',
    text: 'An invoice is open until it is approved, rejected or paid; only an open invoice can change its status.',
  },
  {
    id: 'kb-refunds',
    title: 'Refunding payments',
    text: 'A payment can be refunded in parts, in cents. The refunds of a payment never add up to more than the amount paid. Every refund is confirmed by an approver.',
  },
  {
    id: 'kb-email',
    title: 'Sending email drafts',
    text: 'A prepared draft is sent once. An approver confirms the recipients, subject and body before the email goes out.',
  },
  {
    id: 'acme-inv_481',
    tenant: 'acme',
    title: 'Invoice inv_481',
    text: 'Invoice inv_481 of acme: 1,200.00 EUR, issued open.',
  },
  {
    id: 'acme-inv_482',
    tenant: 'acme',
    title: 'Invoice inv_482',
    text: 'Invoice inv_482 of acme: 25,000.00 EUR, issued open; changing its status needs an approver to confirm.',
  },
  {
    id: 'acme-inv_483',
    tenant: 'acme',
    title: 'Invoice inv_483',
    text: 'Invoice inv_483 of acme: 300.00 EUR, paid.',
  },
  {
    id: 'acme-pay_11',
    tenant: 'acme',
    title: 'Payment pay_11',
    text: 'Payment pay_11 of acme: 50.00 EUR, refundable in parts.',
  },
  {
    id: 'acme-draft_7',
    tenant: 'acme',
    title: 'Email draft draft_7',
    text: 'Draft draft_7 of acme: the Q3 report email to ops@acme.example.',
  },
  {
    id: 'globex-inv_900',
    tenant: 'globex',
    title: 'Invoice inv_900',
    text: 'Invoice inv_900 of globex: 800.00 EUR, issued open.',
  },
];

/** Lower-case words of letters, digits and `_` (so `inv_481` is one word). */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/**
 * Up to `maxResults` entries readable by `tenant` that share a word with `query`, the most
 * shared words first, ties in knowledge-base order. No shared word, no hit.
 */
export function searchBilling(
  query: string,
  tenant: string,
  maxResults: number = DEFAULT_MAX_RESULTS,
  base: readonly KnowledgeEntry[] = KNOWLEDGE_BASE,
): SearchHit[] {
  const wanted = new Set(words(query));
  return base
    .filter((entry) => entry.tenant === undefined || entry.tenant === tenant)
    .map((entry, order) => {
      const have = new Set(words(`${entry.title} ${entry.text}`));
      return { entry, order, score: [...wanted].filter((w) => have.has(w)).length };
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, Math.max(0, maxResults))
    .map(({ entry }) => ({ id: entry.id, title: entry.title, snippet: entry.text }));
}
