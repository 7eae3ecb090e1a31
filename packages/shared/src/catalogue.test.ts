import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DISPOSITIONS, REJECTION_CODES, RUNGS } from './catalogue.js';
import { renderRejectionCodes } from './catalogue-doc.js';

const docPath = new URL('../../../docs/rejection-codes.md', import.meta.url);

describe('the rejection-code catalogue', () => {
  it('matches docs/rejection-codes.md (run `npm run docs:codes` after changing a code)', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(renderRejectionCodes());
  });

  it('lists every code of every rung in the page', () => {
    const page = readFileSync(docPath, 'utf8');
    for (const rung of RUNGS) {
      for (const code of Object.keys(REJECTION_CODES[rung]))
        expect(page).toContain(`| \`${code}\` |`);
    }
  });

  it('never offers repair outside representation, schema and semantics', () => {
    for (const rung of RUNGS) {
      for (const spec of Object.values(REJECTION_CODES[rung])) {
        expect(DISPOSITIONS).toContain(spec.disposition);
        if (spec.disposition === 'repair')
          expect(['representation', 'schema', 'semantics']).toContain(rung);
      }
    }
  });

  it('never offers a retry for truncation as a repair', () => {
    expect(REJECTION_CODES.representation.truncated.disposition).toBe('retry');
  });
});
