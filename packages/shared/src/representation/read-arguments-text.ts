/**
 * Decodes a text the model wrote (arguments, or a whole bare action) within the ceilings, with the
 * one allowed repair: a known Markdown fence around the whole text.
 */
import { accept, rejecterFor, type Decision } from '../decision.js';
import { findFence } from './markdown-fence.js';
import { decodeJsonText } from './parse-json-bounded.js';
import type { ParseLimits } from './parse-limits.js';
import { tooLarge } from './refusals.js';
import { oversizeBytes } from './utf8-length.js';

const reject = rejecterFor('representation');

/** A decoded text: its value, and whether a fence had to be stripped to get it. */
export interface DecodedText {
  readonly value: unknown;
  readonly repaired?: 'fence';
}

/**
 * Decodes `text` as JSON within `limits`. The byte ceiling applies to the text as the model gave
 * it, fence included. A fenced body is parsed strictly and marked `repaired: 'fence'`. A fence
 * that opens and never closes ended early: `truncated` when its body is valid so far.
 */
export function readArgumentsText(
  text: string,
  limits: ParseLimits,
): Decision<DecodedText, 'representation'> {
  const bytes = oversizeBytes(text, limits.maxBytes);
  if (bytes !== undefined) return tooLarge(bytes, limits.maxBytes);
  const fence = findFence(text);
  switch (fence.kind) {
    case 'none': {
      const decoded = decodeJsonText(text, limits, 0);
      return decoded.ok ? accept({ value: decoded.value }) : decoded;
    }
    case 'closed': {
      const decoded = decodeJsonText(fence.body, limits, fence.origin);
      return decoded.ok ? accept({ value: decoded.value, repaired: 'fence' }) : decoded;
    }
    case 'unclosed': {
      const decoded = decodeJsonText(fence.body, limits, fence.origin);
      if (decoded.ok || decoded.code === 'truncated') {
        return reject(
          'truncated',
          undefined,
          'a Markdown fence opens and the text ends before it closes',
        );
      }
      return decoded;
    }
    case 'opening-cut':
      return reject(
        'truncated',
        undefined,
        'the text ends inside the opening line of a Markdown fence',
      );
  }
}
