import { describe, expect, it } from 'vitest';
import { rejecterFor } from './decision.js';

describe('rejecterFor', () => {
  it('takes the disposition from the catalogue and defaults the public text', () => {
    const r = rejecterFor('representation')('truncated', undefined, 'finish_reason=length');
    expect(r).toMatchObject({
      ok: false,
      stage: 'representation',
      code: 'truncated',
      disposition: 'retry',
    });
    expect(r.publicMessage).toMatch(/cut off/);
  });

  it("says the catalogue's text where a check gave an empty one", () => {
    const r = rejecterFor('semantics')('out_of_range', '', 'amount 0');
    expect(r.publicMessage).not.toBe('');
    expect(r.publicMessage).toBe(
      rejecterFor('semantics')('out_of_range', undefined, '').publicMessage,
    );
  });
});
