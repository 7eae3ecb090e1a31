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
});
