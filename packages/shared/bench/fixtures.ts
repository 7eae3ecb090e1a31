/**
 * Realistic tool-call argument texts from about 200 bytes to 16 KiB, built deterministically so
 * every run measures the same bytes.
 */

const CODE_LINE =
  'export function total(items: readonly Item[]): number {\n\treturn items.reduce((sum, i) => sum + i.price * i.qty, 0); // "net"\n}\n';

function search(): unknown {
  return {
    query: 'quarterly revenue by region, excluding refunds',
    max_results: 10,
    filters: { lang: 'en', safe: true, since: '2024-01-01', sources: ['crm', 'billing'] },
    sort: { field: 'relevance', order: 'desc' },
  };
}

function editFile(lines: number): unknown {
  return {
    path: '/workspace/src/billing/total.ts',
    old_text: CODE_LINE.repeat(lines),
    new_text: CODE_LINE.replace('sum +', 'sum + (i.discount ?? 0) +').repeat(lines),
    dry_run: false,
  };
}

function rows(count: number): unknown {
  return {
    table: 'invoices',
    rows: Array.from({ length: count }, (_, i) => ({
      id: 100_000 + i,
      customer: `Café Müller ${String(i)} — Zürich`,
      amount_cents: 1999 + i * 7,
      paid: i % 3 === 0,
      tags: ['q3', i % 2 === 0 ? 'eu' : 'ch'],
      ratio: i / 7,
      note: null,
    })),
  };
}

/** Named argument texts, smallest first. */
export const FIXTURES: readonly { readonly name: string; readonly text: string }[] = [
  { name: 'search ~0.2 KiB', text: JSON.stringify(search()) },
  { name: 'edit ~2 KiB', text: JSON.stringify(editFile(6)) },
  { name: 'rows ~4 KiB', text: JSON.stringify(rows(22)) },
  { name: 'rows ~8 KiB pretty', text: JSON.stringify(rows(30), null, 2) },
  { name: 'edit ~15 KiB', text: JSON.stringify(editFile(50)) },
];
