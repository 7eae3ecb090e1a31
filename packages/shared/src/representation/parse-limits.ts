/** Byte and depth ceilings for decoding one JSON text or arguments object. */
export interface ParseLimits {
  /** Most UTF-8 bytes the text (or the compact serialization of an object) may take. */
  readonly maxBytes: number;
  /** Deepest container nesting allowed; the outermost object or array is depth 1. */
  readonly maxDepth: number;
}

/** 16 KiB of UTF-8 and depth 32 (DESIGN §7: argument bytes default 16 KiB). */
export const DEFAULT_PARSE_LIMITS: ParseLimits = Object.freeze({
  maxBytes: 16 * 1024,
  maxDepth: 32,
});
