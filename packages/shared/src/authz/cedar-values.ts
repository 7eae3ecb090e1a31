/**
 * JSON data as Cedar values, exactly or not at all: resolved objects' attributes and a call's
 * arguments both cross into the engine through here. Anything Cedar cannot hold exactly refuses
 * the whole request (a `policy_error`), because a value dropped or rounded silently could switch a
 * `forbid` off.
 */
import type { CedarValueJson } from '@cedar-policy/cedar-wasm/nodejs';

/** How deep a value may nest before it is refused. */
export const MAX_ATTRIBUTE_DEPTH = 32;

/** A converted value, or why it cannot be expressed. */
export type ValueOutcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/** What a number becomes in Cedar. */
export type NumberKind = 'long' | 'decimal';

/**
 * How numbers convert: a number whose place declares a kind gets that kind; an undeclared whole
 * number is a `Long`, and an undeclared fractional one a `decimal` or, with `fractions: 'refuse'`,
 * a refusal.
 */
export interface Typing {
  readonly fractions: 'decimal' | 'refuse';
  /** Where in the value the conversion is. */
  readonly place: Place;
}

/** A position in a value that may know which number kind it holds, and its members' places. */
export interface Place {
  /** The declared kind of a number here; undefined when nothing declares one. */
  readonly kind: NumberKind | undefined;
  member(key: string): Place;
  element(index: number): Place;
}

/** A place about which nothing is known. */
export const UNKNOWN_PLACE: Place = {
  kind: undefined,
  member: () => UNKNOWN_PLACE,
  element: () => UNKNOWN_PLACE,
};

/** Record keys Cedar's JSON value format reads as an entity reference or extension value. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__entity', '__extn', '__expr']);

// In a `u` regular expression a surrogate range matches only unpaired surrogates, which Cedar's
// JSON reader refuses by throwing; such text is refused here instead.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * A record: `null`/`undefined` members are left out (Cedar has no null; `has` sees them as
 * absent); a reserved key, text with an unpaired surrogate or too deep nesting refuses.
 */
export function cedarRecord(
  record: Readonly<Record<string, unknown>>,
  path: string,
  depth: number,
  typing: Typing,
): ValueOutcome<Record<string, CedarValueJson>> {
  const out: Record<string, CedarValueJson> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === null || value === undefined) continue;
    if (RESERVED_KEYS.has(key)) {
      return { ok: false, problem: `${path}.${key} uses a reserved Cedar JSON key` };
    }
    if (LONE_SURROGATE.test(key)) {
      return { ok: false, problem: `a key of ${path} is not well-formed text` };
    }
    const place = { ...typing, place: typing.place.member(key) };
    const converted = cedarValue(value, `${path}.${key}`, depth + 1, place);
    if (!converted.ok) return converted;
    out[key] = converted.value;
  }
  return { ok: true, value: out };
}

function cedarValue(
  value: unknown,
  path: string,
  depth: number,
  typing: Typing,
): ValueOutcome<CedarValueJson> {
  if (depth > MAX_ATTRIBUTE_DEPTH) return { ok: false, problem: `${path} nests too deeply` };
  if (typeof value === 'string') {
    return LONE_SURROGATE.test(value)
      ? { ok: false, problem: `${path} is not well-formed text` }
      : { ok: true, value };
  }
  if (typeof value === 'boolean') return { ok: true, value };
  if (typeof value === 'number') return cedarNumber(value, path, typing);
  if (Array.isArray(value)) return cedarSet(value, path, depth, typing);
  if (typeof value === 'object' && value !== null) {
    return cedarRecord(value as Record<string, unknown>, path, depth, typing);
  }
  return { ok: false, problem: `${path} has a ${typeof value} value` };
}

function cedarSet(
  values: readonly unknown[],
  path: string,
  depth: number,
  typing: Typing,
): ValueOutcome<CedarValueJson> {
  const out: CedarValueJson[] = [];
  for (const [index, element] of values.entries()) {
    if (element === null || element === undefined) {
      return { ok: false, problem: `${path}[${index}] is null` };
    }
    const place = { ...typing, place: typing.place.element(index) };
    const converted = cedarValue(element, `${path}[${index}]`, depth + 1, place);
    if (!converted.ok) return converted;
    out.push(converted.value);
  }
  return { ok: true, value: out };
}

function cedarNumber(value: number, path: string, typing: Typing): ValueOutcome<CedarValueJson> {
  const kind =
    typing.place.kind ??
    (Number.isInteger(value) || typing.fractions === 'refuse' ? 'long' : 'decimal');
  if (kind === 'long') {
    return Number.isSafeInteger(value)
      ? { ok: true, value }
      : { ok: false, problem: `${path} is not a whole number Cedar can hold exactly` };
  }
  const text = decimalText(value);
  return text === undefined
    ? { ok: false, problem: `${path} is not a decimal Cedar can hold exactly` }
    : { ok: true, value: { __extn: { fn: 'decimal', arg: text } } };
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,4}))?$/;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/**
 * The argument of Cedar's `decimal(…)` for `value` (digits on both sides of the point), or
 * undefined when the number's shortest decimal form has more than four fractional digits or lies
 * outside ±922337203685477.5807: Cedar holds a decimal as a 64-bit count of ten-thousandths.
 */
export function decimalText(value: number): string | undefined {
  const match = DECIMAL.exec(String(value));
  if (match === null) return undefined;
  const [, sign = '', whole = '0', fraction = ''] = match;
  const scaled = BigInt(`${sign}${whole}${fraction.padEnd(4, '0')}`);
  if (scaled < LONG_MIN || scaled > LONG_MAX) return undefined;
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}
