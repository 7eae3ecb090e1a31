/**
 * Unicode "tag" characters U+E0020–U+E007E mirror printable ASCII and render as nothing, yet some
 * models read them ("ASCII smuggling"). They are mapped back to ASCII so the scan sees that text.
 */
const TAG_CHARACTERS = /[\u{E0020}-\u{E007E}]/gu;

/**
 * Characters that render as nothing and can split a word without changing how it looks: format
 * characters (zero-width space and joiners, soft hyphen, bidi controls, BOM, other tags), the
 * combining grapheme joiner, Hangul fillers and variation selectors.
 */
const INVISIBLE = /[\p{Cf}\p{Variation_Selector}\u115F\u1160\u3164\uFFA0]|\u034F/gu;

/** Markdown emphasis and code marks, which split phrases like `**ignore** all previous`. */
const EMPHASIS = /[*`~]/g;

/** Line breaks of every kind, so `^` and `$` in multiline patterns see them all. */
const LINE_BREAK = /\r\n?|[\u0085\u2028\u2029]/g;

/** Runs of horizontal white space other than a single plain space (which is already normal). */
const HORIZONTAL_SPACE = /[^\S\n]{2,}|[^\S\n ]/g;

/**
 * Cyrillic and Greek letters that look like Latin ones and that NFKC leaves alone: a short list of
 * the usual homoglyph swaps, not the full Unicode confusables table.
 */
const LOOKALIKES: Readonly<Record<string, string>> = Object.freeze({
  ...pairs('аеорсухіјѕԁһԛԝӏ', 'aeopcyxijsdhqwl'),
  ...pairs('АВЕКМНОРСТХУІЈЅ', 'ABEKMHOPCTXYIJS'),
  ...pairs('αικνορτυχ', 'aikvoptux'),
  ...pairs('ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ', 'ABEZHIKMNOPTYX'),
});
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'gu');

function pairs(from: string, to: string): Record<string, string> {
  return Object.fromEntries([...from].map((c, i) => [c, to.charAt(i)]));
}

/**
 * The text the injection scan looks at: smuggled tag text revealed, invisible characters removed,
 * NFKC-normalised (full-width, mathematical and circled letters become plain ones), common
 * Cyrillic and Greek lookalikes folded to Latin, Markdown emphasis marks dropped, every line break
 * made `\n` and runs of other white space made one space. Case is left alone; patterns ignore it.
 */
export function normalizeForScan(text: string): string {
  return text
    .replace(TAG_CHARACTERS, (c) => String.fromCodePoint((c.codePointAt(0) ?? 0xe0000) - 0xe0000))
    .replace(INVISIBLE, '')
    .normalize('NFKC')
    .replace(LOOKALIKE, (c) => LOOKALIKES[c] ?? c)
    .replace(EMPHASIS, '')
    .replace(LINE_BREAK, '\n')
    .replace(HORIZONTAL_SPACE, ' ');
}
