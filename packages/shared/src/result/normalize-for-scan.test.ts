import { describe, expect, it } from 'vitest';
import { normalizeForScan } from './normalize-for-scan.js';

const tagged = (ascii: string) =>
  String.fromCodePoint(...[...ascii].map((c) => (c.codePointAt(0) ?? 0) + 0xe0000));

describe('normalizeForScan', () => {
  it('reveals text smuggled in Unicode tag characters', () => {
    expect(normalizeForScan(`ok${tagged('hidden text')}`)).toBe('okhidden text');
  });

  it('removes zero-width characters, soft hyphens, bidi controls and variation selectors', () => {
    expect(normalizeForScan('ig\u200bno\u200dre\u00ad \u202eall\u2066 pre\ufe0fvious\u034f')).toBe(
      'ignore all previous',
    );
  });

  it('folds full-width, mathematical and circled letters with NFKC', () => {
    expect(normalizeForScan('ＩＧＮＯＲＥ 𝐚𝐥𝐥 ⓟⓡⓔⓥⓘⓞⓤⓢ')).toBe('IGNORE all previous');
  });

  it('folds common Cyrillic and Greek lookalikes to Latin', () => {
    expect(normalizeForScan('ignоrе аll ΡRΕVIΟUS')).toBe('ignore all PREVIOUS');
  });

  it('drops Markdown emphasis marks and collapses horizontal white space', () => {
    expect(normalizeForScan('**ignore**\t\u00a0 `all`  ~~previous~~')).toBe('ignore all previous');
  });

  it('turns every kind of line break into \\n and keeps them', () => {
    expect(normalizeForScan('a\r\nb\rc\u2028d\u2029e\u0085f')).toBe('a\nb\nc\nd\ne\nf');
  });

  it('changes only the lookalike letters of other scripts (the scan alone sees this text)', () => {
    expect(normalizeForScan('Привет, мир. 你好')).toBe('Пpивeт, миp. 你好');
  });
});
