import { describe, expect, it } from 'vitest';
import { pageCursor } from './page-cursor.js';

describe('pageCursor', () => {
  const cursor = pageCursor('atMs');
  const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('names the position it was made from, under the time field it was given', () => {
    const position = { atMs: 1_800_000_000_123, confirmationId: 'conf_0a1b' };
    expect(cursor.decode(cursor.encode(position))).toEqual(position);
    expect(cursor.encode(position)).toBe(made([1_800_000_000_123, 'conf_0a1b']));
  });

  it('decodes nothing it could not have made', () => {
    const position = { atMs: 1, confirmationId: 'c' };
    for (const forged of [
      '',
      'not base64!',
      made({ atMs: 1, confirmationId: 'c' }),
      made([1]),
      made([-1, 'c']),
      made([1.5, 'c']),
      made(['1', 'c']),
      made([1, '']),
      made([1, 'c'.repeat(257)]),
      `${cursor.encode(position)}=`,
      Buffer.from(JSON.stringify([1, 'c']).replace(',', ', ')).toString('base64url'),
    ]) {
      expect(cursor.decode(forged), forged).toBeUndefined();
    }
  });
});
