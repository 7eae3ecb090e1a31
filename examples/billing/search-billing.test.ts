import { describe, expect, it } from 'vitest';
import { KNOWLEDGE_BASE, searchBilling } from './search-billing.js';

describe('searchBilling', () => {
  it("finds the caller's own invoices and never another tenant's", () => {
    const acme = searchBilling('invoice', 'acme', 20);
    expect(acme.map((h) => h.id)).toContain('acme-inv_481');
    expect(JSON.stringify(acme)).not.toMatch(/globex|inv_900/);
    const globex = searchBilling('invoice inv_481', 'globex', 20);
    expect(globex.map((h) => h.id)).toContain('globex-inv_900');
    expect(JSON.stringify(globex)).not.toMatch(/acme|inv_48/);
  });

  it('ranks by shared words, ties in knowledge-base order, and is deterministic', () => {
    const hits = searchBilling('payment pay_11', 'acme');
    expect(hits.map((h) => h.id)).toEqual(['acme-pay_11', 'kb-refunds']);
    expect(searchBilling('payment pay_11', 'acme')).toEqual(hits);
    const ties = searchBilling('invoice', 'acme', 20).map((h) => h.id);
    const order = KNOWLEDGE_BASE.map((e) => e.id).filter((id) => ties.includes(id));
    expect(ties).toEqual(order);
  });

  it('returns at most max_results (5 by default), and nothing for unrelated words', () => {
    expect(searchBilling('invoice', 'acme', 2)).toHaveLength(2);
    expect(searchBilling('invoice open of the', 'acme')).toHaveLength(5);
    expect(searchBilling('zebra', 'acme')).toEqual([]);
  });

  it('answers snippets from the knowledge base only', () => {
    const texts = new Set(KNOWLEDGE_BASE.map((e) => e.text));
    for (const hit of searchBilling('invoice payment draft email', 'acme', 20)) {
      expect(texts.has(hit.snippet)).toBe(true);
    }
  });
});
