import { sha256Hex } from '../idempotency/canonical-sha256.js';

/** Every marker starts with this; no run of three `<` survives inside wrapped content. */
export const TOOL_OUTPUT_MARKER_PREFIX = '<<<';

/** Hex characters of the content digest carried by both markers. */
const MARKER_ID_HEX = 16;

/** Three or more `<` in a row. */
const MARKER_PREFIX_RUN = /<{3,}/g;

/**
 * Wraps tool output for the model between an opening and a closing marker:
 *
 * ```text
 * <<<tool_output id=0123456789abcdef>>>
 * …content…
 * <<<end_tool_output id=0123456789abcdef>>>
 * ```
 *
 * The closing marker cannot appear inside, for two reasons. First, the content is neutralised:
 * every run of three or more `<` gets a backslash between its characters (`<<<` → `<\<\<`), so the
 * content holds no `<<<` at all, and newlines keep it from running into a marker. Second, `id` is
 * the first 16 hex characters of SHA-256 over the neutralised content, so a closing marker copied
 * from another output does not match, and writing one's own would need a hash fixed point.
 * Look-alikes (full-width `＜`) are not markers; the injection scan, which runs on NFKC-normalised
 * text before wrapping, withholds output that imitates them.
 */
export function wrapToolOutput(text: string): string {
  const content = text.replace(MARKER_PREFIX_RUN, (run) => [...run].join('\\'));
  const id = sha256Hex(content).slice(0, MARKER_ID_HEX);
  return `<<<tool_output id=${id}>>>\n${content}\n${closingMarker(id)}`;
}

/** The closing marker for a given content id. */
function closingMarker(id: string): string {
  return `${TOOL_OUTPUT_MARKER_PREFIX}end_tool_output id=${id}>>>`;
}
