/**
 * The building blocks of the message schemas: the common field shapes, the closed (written by the
 * gate) and open (written by others) message forms, and the conditions that tie fields together.
 */
import { REJECTION_CODES, RUNGS, type Rung } from '../catalogue.js';

/** A JSON Schema, as plain data. */
export type MessageSchema = Readonly<Record<string, unknown>>;

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

/** A non-empty string. */
export const text = { type: 'string', minLength: 1 } as const;
/** An RFC 3339 date-time. */
export const instant = { type: 'string', format: 'date-time' } as const;
/** A non-negative integer. */
export const count = { type: 'integer', minimum: 0 } as const;
/** A SHA-256 digest in lowercase hex. */
export const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
/** A non-empty string, or null. */
export const nullableText = { type: ['string', 'null'], minLength: 1 } as const;
/** Any JSON object. */
export const jsonObject = { type: 'object' } as const;

/** Every rejection code of the catalogue, of every rung, once each. */
export const ALL_CODES = [...new Set(RUNGS.flatMap((r) => Object.keys(REJECTION_CODES[r])))];

const codesOf = (rung: Rung) => Object.keys(REJECTION_CODES[rung]);

/**
 * The field `stage` of observations and audit events names a rung of the ladder, not one of the
 * services (validate, authorize, confirm, execute): a published name, kept as it is.
 */
export const rungField = {
  enum: RUNGS,
  description:
    'The rung of the ladder that decided (for a refusal, the one that refused), e.g. schema or authorization. The field name is kept as published; it does not name a service.',
} as const;

/** `{properties: {a: true, …}, required: [a, …]}`: declared, so strict mode accepts `required`. */
export function requires(...names: readonly string[]) {
  return { properties: Object.fromEntries(names.map((n) => [n, true])), required: names };
}

/** When every property in `props` is present and matches, `then` applies. */
export function when(
  props: Readonly<Record<string, unknown>>,
  then: Readonly<Record<string, unknown>>,
) {
  return { if: { properties: props, required: Object.keys(props) }, then };
}

/**
 * A message the gate writes: every field declared (`additionalProperties: false`), so a writer's
 * bug fails loudly. `extra` adds keywords such as `allOf` or `$defs`.
 */
export function closed(
  title: string,
  properties: Readonly<Record<string, unknown>>,
  required: readonly string[],
  extra: Readonly<Record<string, unknown>> = {},
): MessageSchema {
  return {
    $schema: DRAFT,
    title,
    type: 'object',
    additionalProperties: false,
    required,
    properties,
    ...extra,
  };
}

/**
 * A message others write: its full shape, open to more fields; the gate's own checks refuse what
 * is wrong, with an answer where one is possible. `extra` adds keywords such as `allOf`.
 */
export function open(
  title: string,
  description: string,
  properties: Readonly<Record<string, unknown>>,
  required: readonly string[],
  extra: Readonly<Record<string, unknown>> = {},
): MessageSchema {
  return { $schema: DRAFT, title, description, type: 'object', required, properties, ...extra };
}

/** Ties a rung to its own codes: `{stage: R}` allows only the catalogue's codes of rung R. */
export function codesByRung(nullable: boolean) {
  return RUNGS.map((rung) =>
    when(
      { stage: { const: rung } },
      {
        properties: { code: { enum: nullable ? [...codesOf(rung), null] : codesOf(rung) } },
      },
    ),
  );
}
