/**
 * The one JSON Schema validator configuration of the gate: tool input schemas, output schemas and
 * the JSON Schema Test Suite all go through it, so what the suite measures is what the gate runs.
 */
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import { formatNames, fullFormats } from 'ajv-formats/dist/formats.js';

/**
 * The gate's ajv options, and why:
 * - `strict: true` — unknown keywords, type-specific keywords without a `type`, `required` names
 *   that are not declared and loose tuples are refused when a tool is loaded, because a typo in a
 *   trusted schema silently weakens the gate (an unknown keyword validates nothing). One cost:
 *   a `required` inside `anyOf`/`oneOf` must name a property declared in that same branch, so
 *   "one of a or b" is written `anyOf: [{ required: ["a"], properties: { a: <a's schema> } }, …]`.
 * - `allowUnionTypes: true` — `type: ["string", "null"]` is how nullable values are written.
 * - `ownProperties: true` — only own properties count: with ajv's default, `{}` satisfies
 *   `required: ["toString", "constructor"]` through `Object.prototype`.
 * - `$data: false` — schemas never read limits out of the data being validated (a `$data` pattern
 *   is a ReDoS handed to the caller, CVE-2025-69873).
 * - `allErrors: true` — every problem of a call is reported at once. Cheap here because the
 *   representation rung has already bounded the arguments' size and depth.
 * - `validateFormats: true` with ajv-formats' full formats — `format` is asserted, not merely
 *   annotated as draft 2020-12 says: a tool that declares `format: "uuid"` or `"date"` relies on
 *   it, and the gate is the only place that can hold the model to it. Unknown formats are refused
 *   at load (strict mode).
 * - `useDefaults`, `coerceTypes` and `removeAdditional` stay off: the gate never invents, converts
 *   or drops a value the model sent.
 * - `verbose: false`, `messages: false` — error objects carry neither the offending value nor
 *   ajv's prose; the schema rung writes its own messages, which never echo values.
 */
export const VALIDATOR_OPTIONS: Readonly<Options> = Object.freeze({
  strict: true,
  allowUnionTypes: true,
  ownProperties: true,
  $data: false,
  allErrors: true,
  validateFormats: true,
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
  verbose: false,
  messages: false,
});

/**
 * Returns a fresh validator with the gate's configuration ({@link VALIDATOR_OPTIONS}) and
 * ajv-formats' full format set. `formatMinimum` and the other ajv-formats keywords are not added:
 * tool schemas that use them are refused as unknown keywords.
 */
export function createValidator(): Ajv2020 {
  const ajv = new Ajv2020({ ...VALIDATOR_OPTIONS });
  addGateFormats(ajv);
  return ajv;
}

/**
 * Adds ajv-formats' full formats to `ajv` one by one. The plugin entry point is avoided on
 * purpose: it generates code with its own copy of ajv's code generator, which npm may install
 * apart from ours, and the generated `formatMinimum` checks then throw at validation time.
 */
export function addGateFormats(ajv: Ajv2020): void {
  for (const name of formatNames) ajv.addFormat(name, fullFormats[name]);
}
