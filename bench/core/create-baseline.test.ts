import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../examples/billing/tools.js';
import { createBaseline } from './create-baseline.js';

const check = createBaseline(TOOLS);
const args = (tool: string, text: string) => ({ shape: 'arguments', tool, text }) as const;

describe('createBaseline', () => {
  it('accepts arguments that fit the tool schema', () => {
    expect(check(args('search', '{"query":"open invoices","max_results":3}'))).toBe(true);
    expect(check({ shape: 'action', text: '{"action":"final","arguments":{"answer":"ok"}}' })).toBe(
      true,
    );
  });

  it('refuses malformed JSON without throwing', () => {
    expect(check(args('search', "{'query': 'x'}"))).toBe(false);
    expect(check({ shape: 'action', text: '{"action":"search","arguments":{' })).toBe(false);
  });

  it('refuses an unknown tool and arguments the schema rejects', () => {
    expect(check(args('delete_invoice', '{"query":"x"}'))).toBe(false);
    expect(check(args('approve_invoice', '{"invoice_id":"inv_481"}'))).toBe(false);
    expect(check({ shape: 'action', text: '["search"]' })).toBe(false);
  });

  it('checks no meaning: a blank query passes, which the ladder refuses at semantics', () => {
    expect(check(args('search', '{"query":"   "}'))).toBe(true);
  });
});
