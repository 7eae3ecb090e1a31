/**
 * The design not taken, kept only to measure it: native JSON.parse for the value plus a light
 * token scan for depth, duplicate and forbidden keys and long integers. It leaves grammar to
 * JSON.parse and would hand any refusal (and any surrogate escape) to the full reader to name the
 * code, so the scan below is the whole cost of its happy path, which is what the bench compares.
 */
import type { ParseLimits } from '../src/representation/parse-limits.js';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const SURROGATE_HINT = /\\u[dD][89a-fA-F]|[\ud800-\udfff]/;

/** The value, or undefined where the real implementation would fall back to the full reader. */
export function scanThenNative(text: string, limits: ParseLimits): unknown {
  if (Buffer.byteLength(text) > limits.maxBytes || SURROGATE_HINT.test(text)) return undefined;
  if (!scan(text, limits.maxDepth)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function scan(text: string, maxDepth: number): boolean {
  const keys: (Set<string> | undefined)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      keys.push(c === 0x7b ? new Set() : undefined);
      if (keys.length > maxDepth) return false;
    } else if (c === 0x7d || c === 0x5d) keys.pop();
    else if (c === 0x22) {
      const close = closingQuote(text, i + 1);
      if (close < 0) return false;
      if (isKey(text, close + 1) && !addKey(keys.at(-1), text, i, close)) return false;
      i = close;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text.charAt(end))) end++;
      if (end - i >= 16 && !/[.eE]/.test(text.slice(i, end))) {
        const literal = text.slice(i, end);
        if (!Number.isSafeInteger(Number(literal)) && String(Number(literal)) !== literal)
          return false;
      }
      i = end - 1;
    }
  }
  return true;
}

function addKey(set: Set<string> | undefined, text: string, open: number, close: number): boolean {
  const raw = text.slice(open + 1, close);
  const key = raw.includes('\\') ? (JSON.parse(text.slice(open, close + 1)) as string) : raw;
  if (set === undefined || FORBIDDEN.has(key) || set.has(key)) return false;
  set.add(key);
  return true;
}

function isKey(text: string, from: number): boolean {
  let i = from;
  while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++;
  return text.charCodeAt(i) === 0x3a;
}

function closingQuote(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q >= 0) {
    let slashes = 0;
    while (q - 1 - slashes >= from && text.charCodeAt(q - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}
