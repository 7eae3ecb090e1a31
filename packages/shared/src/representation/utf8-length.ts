/**
 * Whether `text` takes more than `maxBytes` bytes of UTF-8: undefined when it fits, otherwise its
 * byte count, or its length when that alone exceeds the ceiling (so a huge text is never walked).
 * A lone surrogate counts as the three bytes of the replacement character an encoder writes.
 * A NaN ceiling fits nothing.
 */
export function oversizeBytes(text: string, maxBytes: number): number | undefined {
  // Every UTF-16 unit takes one to three bytes (a pair takes four), so the length often decides.
  if (text.length * 3 <= maxBytes) return undefined;
  const bytes = text.length > maxBytes ? text.length : Buffer.byteLength(text, 'utf8');
  return bytes <= maxBytes ? undefined : bytes;
}
