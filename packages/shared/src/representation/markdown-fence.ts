/**
 * The one repair the gate makes: a known Markdown fence around the whole text. Recognising it is
 * all this module does; the body is still parsed strictly.
 */

/** What surrounds a text: no fence, a whole fence, an opened fence never closed, or a cut-off opening. */
export type Fence =
  | { readonly kind: 'none' }
  | { readonly kind: 'closed'; readonly body: string; readonly origin: number }
  | { readonly kind: 'unclosed'; readonly body: string; readonly origin: number }
  | { readonly kind: 'opening-cut' };

/** ```` ``` ```` or ```` ```json ```` (any case) alone on the first line, after optional whitespace. */
const OPENING = /^[ \t\r\n]*```(?:json)?[ \t]*\r?\n/i;

/** A proper prefix of an opening line: the text ends before the line does. */
const OPENING_CUT = /^[ \t\r\n]*(?:`{1,2}|```(?:j(?:s(?:o(?:n)?)?)?)?[ \t]*)$/i;

/**
 * Finds a fence around the whole of `text`: an opening line of ```` ``` ```` or ```` ```json ````
 * and a closing ```` ``` ```` at the very end (whitespace around both allowed). `origin` is where
 * the body starts in `text`. Any other wrapping (prose, tags, another info string) is no fence.
 */
export function findFence(text: string): Fence {
  const opening = OPENING.exec(text);
  if (opening === null) return OPENING_CUT.test(text) ? { kind: 'opening-cut' } : { kind: 'none' };
  const origin = opening[0].length;
  let end = text.length;
  while (end > origin && isWhitespace(text.charCodeAt(end - 1))) end--;
  if (end - 3 >= origin && text.endsWith('```', end)) {
    return { kind: 'closed', body: text.slice(origin, end - 3), origin };
  }
  return { kind: 'unclosed', body: text.slice(origin), origin };
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
