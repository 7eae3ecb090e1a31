/**
 * Outside suite 1: the official JSON Schema Test Suite (draft 2020-12, with `optional/` and the
 * `remotes/` used by `$ref` tests), read in place, run through the gate's validator twice:
 *
 * - as the gate loads schemas (`createValidator()`, strict mode): what a tool schema written like
 *   the suite's schemas would meet;
 * - with the gate's validation semantics alone (the same options, strict mode off), so that every
 *   schema compiles and the choices about values (formats asserted, own properties) are measured.
 *
 * Each intended difference is listed below with its reason, and the tests assert that exactly
 * the listed groups are refused and exactly the listed tests differ, so a regression (or an
 * upstream fix) fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { corpusPath } from '../corpora.test-support.js';
import { addGateFormats, createValidator, VALIDATOR_OPTIONS } from './create-validator.js';

/** Why the gate departs from the suite, by reason. */
const REASONS = {
  types:
    'strictTypes: a type-specific keyword without `type` is refused when a tool loads, because an untyped `minimum` or `properties` silently accepts every other type. The suite writes minimal schemas without `type`.',
  required:
    'strictRequired: a `required` name must be declared in `properties` of the same schema; this catches typos that would make a tool uncallable.',
  tuples:
    'strictTuples: `prefixItems` must fix the length (`minItems` plus `items: false` or `maxItems`); a loose tuple lets a model append items nobody declared.',
  ignoredKeyword:
    'strictSchema: `if` without `then`/`else`, or `then`/`else` without `if`, has no effect and is refused as a mistake.',
  unknownKeyword:
    'strictSchema: unknown keywords are refused when a tool loads; an unknown keyword validates nothing and is usually a typo.',
  anchor:
    'ajv strict mode reports `$anchor` as an unknown keyword. Tool schemas may not use anchors anyway: references must be local JSON pointers (refused at load).',
  dynamicRef:
    'ajv implements `$dynamicRef` only in part. Tool schemas may not use `$dynamicRef` (refused at load), so the gate never relies on it.',
  emptyEnum:
    'ajv refuses `enum: []`, which the standard allows (it accepts nothing); no tool needs an argument that can never be sent.',
  otherDrafts:
    'Only draft 2020-12 (and draft-less) remotes are registered: tool schemas are 2020-12 and self-contained.',
  formatVocabulary:
    'ajv ships no metaschema for the format-assertion vocabulary; the gate asserts formats regardless (see formatAsserted).',
  idInUnknownKeyword:
    'ajv registers an `$id` found inside an unknown keyword and then finds that identifier twice. Tool schemas may not use `$id`.',
  recursion:
    'ajv overflows its stack compiling these relative-`$id`/URN reference layouts (an ajv bug). Tool schemas may not use `$id`, and a tool schema that fails to compile is refused at load, never later.',
  bignum:
    'JavaScript numbers are IEEE doubles, so 1e308 overflows the `multipleOf` check (optional).',
  formatAsserted:
    'Draft 2020-12 makes `format` an annotation; the gate asserts it (VALIDATOR_OPTIONS says why).',
  formatLibrary: "ajv-formats' checks differ from the RFCs on these edge cases (optional tests).",
  unknownFormat:
    'With strict mode off, ajv ignores formats it does not know (idn-email, idn-hostname, iri, iri-reference); in the gate a tool schema using one is refused at load.',
  protoName:
    'ajv does not validate a property named `__proto__`; the gate refuses that name in tool schemas at load and in arguments at the representation rung.',
  unevaluated:
    "ajv's unevaluatedItems/unevaluatedProperties tracking departs from the standard around `contains`, `if` without `then` and nested `items`: prefer `additionalProperties: false` and `items`, which ajv gets right. A property can slip past `unevaluatedProperties: false` only when the schema declares it, where the load-time name checks see it.",
  vocabulary:
    'ajv ignores `$vocabulary` in custom metaschemas; tool schemas use the standard 2020-12 metaschema.',
} as const;

type Reason = keyof typeof REASONS;

/** Keys (`file › group`, `file › *` for every group of a file, `file › group › test`) by reason. */
type Table = Readonly<Partial<Record<Reason, readonly string[]>>>;

/** What a compile refusal for each reason says, so a refusal for another cause is not excused. */
const EVIDENCE: Readonly<Partial<Record<Reason, RegExp>>> = {
  types: /\(strictTypes\)/,
  required: /\(strictRequired\)/,
  tuples: /is \d+-tuple, but minItems or maxItems\/items are not specified/,
  ignoredKeyword: /"(if|then|else)" without "?(if|then|else)/,
  unknownKeyword: /strict mode: unknown keyword: "(?!\$anchor)/,
  anchor: /strict mode: unknown keyword: "\$anchor"/,
  dynamicRef: /"\$dynamicRef" only supports hash fragment reference/,
  emptyEnum: /enum must have non-empty array/,
  otherDrafts: /can't resolve reference http:\/\/localhost:1234\/draft2019-09\//,
  formatVocabulary:
    /can't resolve reference https:\/\/json-schema.org\/draft\/2020-12\/meta\/format-assertion/,
  idInUnknownKeyword: /resolves to more than one schema/,
  recursion: /Maximum call stack size exceeded/,
};

/** Groups `createValidator()` refuses to compile, by reason. */
const GATE_REFUSED: Table = {
  types: [
    'additionalProperties.json › *',
    'allOf.json › allOf',
    'allOf.json › allOf with base schema',
    'allOf.json › allOf simple types',
    'allOf.json › allOf combined with anyOf, oneOf',
    'anyOf.json › anyOf',
    'anyOf.json › anyOf complex types',
    'contains.json › *',
    'default.json › invalid type for default',
    'default.json › invalid string value for default',
    'dependentRequired.json › *',
    'dependentSchemas.json › *',
    'dynamicRef.json › multiple dynamic paths to the $dynamicRef keyword',
    'dynamicRef.json › strict-tree schema, guards against misspelled properties',
    'dynamicRef.json › $dynamicRef points to a boolean schema',
    'exclusiveMaximum.json › *',
    'exclusiveMinimum.json › *',
    'format.json › *',
    'if-then-else.json › if and then without else',
    'if-then-else.json › if and else without then',
    'if-then-else.json › validate against correct branch, then vs else',
    'if-then-else.json › if appears at the end when serialized (keyword processing sequence)',
    'infinite-loop-detection.json › *',
    'items.json › a schema given for items',
    'items.json › items with boolean schema (true)',
    'items.json › items with boolean schema (false)',
    'items.json › prefixItems with no additional items allowed',
    'items.json › items does not look in applicators, valid case',
    'items.json › prefixItems validation adjusts the starting index for items',
    'items.json › items with heterogeneous array',
    'items.json › items with null instance elements',
    'maxContains.json › *',
    'maxItems.json › *',
    'maxLength.json › *',
    'maxProperties.json › *',
    'maximum.json › *',
    'minContains.json › *',
    'minItems.json › *',
    'minLength.json › *',
    'minProperties.json › *',
    'minimum.json › *',
    'multipleOf.json › by int',
    'multipleOf.json › by number',
    'multipleOf.json › by small number',
    'not.json › forbidden property',
    "not.json › collect annotations inside a 'not', even if collection is disabled",
    'oneOf.json › oneOf',
    'oneOf.json › oneOf complex types',
    'oneOf.json › oneOf with missing optional property',
    'optional/bignum.json › maximum integer comparison',
    'optional/bignum.json › float comparison with high precision',
    'optional/bignum.json › minimum integer comparison',
    'optional/bignum.json › float comparison with high precision on negative numbers',
    'optional/dependencies-compatibility.json › *',
    'optional/ecmascript-regex.json › patterns always use unicode semantics with pattern',
    'optional/ecmascript-regex.json › \\w in patterns matches [A-Za-z0-9_], not unicode letters',
    'optional/ecmascript-regex.json › pattern with ASCII ranges',
    'optional/ecmascript-regex.json › \\d in pattern matches [0-9], not unicode digits',
    'optional/ecmascript-regex.json › pattern with non-ASCII digits',
    'optional/format/date-time.json › *',
    'optional/format/date.json › *',
    'optional/format/duration.json › *',
    'optional/format/ecmascript-regex.json › *',
    'optional/format/email.json › *',
    'optional/format/hostname.json › *',
    'optional/format/idn-email.json › *',
    'optional/format/idn-hostname.json › *',
    'optional/format/ipv4.json › *',
    'optional/format/ipv6.json › *',
    'optional/format/iri-reference.json › *',
    'optional/format/iri.json › *',
    'optional/format/json-pointer.json › *',
    'optional/format/regex.json › *',
    'optional/format/relative-json-pointer.json › *',
    'optional/format/time.json › *',
    'optional/format/unknown.json › *',
    'optional/format/uri-reference.json › *',
    'optional/format/uri-template.json › *',
    'optional/format/uri.json › *',
    'optional/format/uuid.json › *',
    'optional/no-schema.json › *',
    'optional/non-bmp-regex.json › *',
    'optional/refOfUnknownKeyword.json › reference of an arbitrary keyword of a sub-schema',
    'optional/refOfUnknownKeyword.json › reference of an arbitrary keyword of a sub-schema with encoded ref',
    'pattern.json › pattern validation',
    'pattern.json › pattern is not anchored',
    'patternProperties.json › patternProperties validates properties matching a regex',
    'patternProperties.json › multiple simultaneous patternProperties are validated',
    'patternProperties.json › regexes are not anchored by default and are case sensitive',
    'patternProperties.json › patternProperties with boolean schemas',
    'patternProperties.json › patternProperties with null valued instance properties',
    'prefixItems.json › *',
    'properties.json › *',
    'propertyNames.json › *',
    'ref.json › root pointer ref',
    'ref.json › relative pointer ref to object',
    'ref.json › relative pointer ref to array',
    'ref.json › escaped pointer ref',
    'ref.json › ref applies alongside sibling keywords',
    'ref.json › property named $ref that is not a reference',
    'ref.json › property named $ref, containing an actual $ref',
    'ref.json › refs with quote',
    'ref.json › ref creates new scope when adjacent to keywords',
    'ref.json › refs with relative uris and defs',
    'ref.json › relative refs with absolute uris and defs',
    'ref.json › order of evaluation: $id and $ref',
    'ref.json › simple URN base URI with $ref via the URN',
    'ref.json › simple URN base URI with JSON pointer',
    'ref.json › URN base URI with NSS',
    'ref.json › URN base URI with r-component',
    'ref.json › URN base URI with q-component',
    'ref.json › URN base URI with URN and JSON pointer ref',
    'ref.json › URN base URI with URN and anchor ref',
    'refRemote.json › base URI change',
    'refRemote.json › remote ref with ref to defs',
    'refRemote.json › retrieved nested refs resolve relative to their URI not $id',
    'required.json › *',
    'unevaluatedItems.json › unevaluatedItems true',
    'unevaluatedItems.json › unevaluatedItems false',
    'unevaluatedItems.json › unevaluatedItems as schema',
    'unevaluatedItems.json › unevaluatedItems with uniform items',
    'unevaluatedItems.json › unevaluatedItems with tuple',
    'unevaluatedItems.json › unevaluatedItems with items and prefixItems',
    'unevaluatedItems.json › unevaluatedItems with items',
    'unevaluatedItems.json › unevaluatedItems with nested tuple',
    'unevaluatedItems.json › unevaluatedItems with nested items',
    'unevaluatedItems.json › unevaluatedItems with nested prefixItems and items',
    'unevaluatedItems.json › unevaluatedItems with nested unevaluatedItems',
    'unevaluatedItems.json › unevaluatedItems with anyOf',
    'unevaluatedItems.json › unevaluatedItems with oneOf',
    'unevaluatedItems.json › unevaluatedItems with not',
    'unevaluatedItems.json › unevaluatedItems with if/then/else',
    'unevaluatedItems.json › unevaluatedItems with boolean schemas',
    'unevaluatedItems.json › unevaluatedItems with $ref',
    'unevaluatedItems.json › unevaluatedItems before $ref',
    "unevaluatedItems.json › unevaluatedItems can't see inside cousins",
    'unevaluatedItems.json › item is evaluated in an uncle schema to unevaluatedItems',
    'unevaluatedItems.json › unevaluatedItems depends on adjacent contains',
    'unevaluatedItems.json › unevaluatedItems depends on multiple nested contains',
    'unevaluatedItems.json › unevaluatedItems and contains interact to control item dependency relationship',
    'unevaluatedItems.json › unevaluatedItems with minContains = 0',
    'unevaluatedItems.json › non-array instances are valid',
    'unevaluatedItems.json › unevaluatedItems with null instance elements',
    'unevaluatedItems.json › unevaluatedItems can see annotations from if without then and else',
    'unevaluatedItems.json › Evaluated items collection needs to consider instance location',
    'unevaluatedProperties.json › unevaluatedProperties true',
    'unevaluatedProperties.json › unevaluatedProperties schema',
    'unevaluatedProperties.json › unevaluatedProperties false',
    'unevaluatedProperties.json › unevaluatedProperties with adjacent properties',
    'unevaluatedProperties.json › unevaluatedProperties with adjacent patternProperties',
    'unevaluatedProperties.json › unevaluatedProperties with nested properties',
    'unevaluatedProperties.json › unevaluatedProperties with nested patternProperties',
    'unevaluatedProperties.json › unevaluatedProperties with nested additionalProperties',
    'unevaluatedProperties.json › unevaluatedProperties with nested unevaluatedProperties',
    'unevaluatedProperties.json › unevaluatedProperties with anyOf',
    'unevaluatedProperties.json › unevaluatedProperties with oneOf',
    'unevaluatedProperties.json › unevaluatedProperties with not',
    'unevaluatedProperties.json › unevaluatedProperties with if/then/else',
    'unevaluatedProperties.json › unevaluatedProperties with if/then/else, then not defined',
    'unevaluatedProperties.json › unevaluatedProperties with if/then/else, else not defined',
    'unevaluatedProperties.json › unevaluatedProperties with dependentSchemas',
    'unevaluatedProperties.json › unevaluatedProperties with boolean schemas',
    'unevaluatedProperties.json › unevaluatedProperties with $ref',
    'unevaluatedProperties.json › unevaluatedProperties before $ref',
    'unevaluatedProperties.json › unevaluatedProperties with $dynamicRef',
    "unevaluatedProperties.json › unevaluatedProperties can't see inside cousins",
    "unevaluatedProperties.json › unevaluatedProperties can't see inside cousins (reverse order)",
    'unevaluatedProperties.json › nested unevaluatedProperties, outer false, inner true, properties outside',
    'unevaluatedProperties.json › nested unevaluatedProperties, outer false, inner true, properties inside',
    'unevaluatedProperties.json › nested unevaluatedProperties, outer true, inner false, properties outside',
    'unevaluatedProperties.json › nested unevaluatedProperties, outer true, inner false, properties inside',
    'unevaluatedProperties.json › cousin unevaluatedProperties, true and false, true with properties',
    'unevaluatedProperties.json › cousin unevaluatedProperties, true and false, false with properties',
    'unevaluatedProperties.json › property is evaluated in an uncle schema to unevaluatedProperties',
    'unevaluatedProperties.json › in-place applicator siblings, allOf has unevaluated',
    'unevaluatedProperties.json › in-place applicator siblings, anyOf has unevaluated',
    'unevaluatedProperties.json › unevaluatedProperties + single cyclic ref',
    'unevaluatedProperties.json › unevaluatedProperties + ref inside allOf / oneOf',
    'unevaluatedProperties.json › dynamic evalation inside nested refs',
    'unevaluatedProperties.json › non-object instances are valid',
    'unevaluatedProperties.json › unevaluatedProperties with null valued instance properties',
    'unevaluatedProperties.json › unevaluatedProperties not affected by propertyNames',
    'unevaluatedProperties.json › unevaluatedProperties can see annotations from if without then and else',
    'unevaluatedProperties.json › dependentSchemas with unevaluatedProperties',
    'unevaluatedProperties.json › Evaluated properties collection needs to consider instance location',
    'unevaluatedProperties.json › Evaluated properties collection needs to consider instance location with patternProperties',
    'unevaluatedProperties.json › Evaluated properties collection needs to consider instance location with additionalProperties',
    'uniqueItems.json › *',
    'vocabulary.json › schema that uses custom metaschema with with no validation vocabulary',
  ],
  anchor: [
    'anchor.json › *',
    'dynamicRef.json › A $dynamicRef that initially resolves to a schema without a matching $dynamicAnchor behaves like a normal $ref to $anchor',
    'optional/anchor.json › *',
    'ref.json › order of evaluation: $id and $anchor and $ref',
    'refRemote.json › anchor within remote ref',
    'refRemote.json › Location-independent identifier in remote ref',
    'refRemote.json › $ref to $ref finds detached $anchor',
  ],
  dynamicRef: [
    'dynamicRef.json › A $dynamicRef that initially resolves to a schema with a matching $dynamicAnchor resolves to the first $dynamicAnchor in the dynamic scope',
    'dynamicRef.json › after leaving a dynamic scope, it is not used by a $dynamicRef',
  ],
  emptyEnum: ['enum.json › empty enum'],
  ignoredKeyword: [
    'if-then-else.json › ignore if without then or else',
    'if-then-else.json › ignore then without if',
    'if-then-else.json › ignore else without if',
    'if-then-else.json › non-interference across combined schemas',
    'ref.json › ref to if',
    'ref.json › ref to then',
    'ref.json › ref to else',
  ],
  tuples: [
    'items.json › items and subitems',
    'unevaluatedItems.json › unevaluatedItems with $dynamicRef',
  ],
  required: ['oneOf.json › oneOf with required'],
  otherDrafts: ['optional/cross-draft.json › *'],
  formatVocabulary: ['optional/format-assertion.json › *'],
  unknownKeyword: [
    'optional/refOfUnknownKeyword.json › reference of a root arbitrary keyword ',
    'optional/refOfUnknownKeyword.json › reference of a root arbitrary keyword with encoded ref',
  ],
  idInUnknownKeyword: ['optional/unknownKeyword.json › *'],
  recursion: ['ref.json › URN ref with nested pointer ref'],
};

/** Tests whose verdict differs under `createValidator()`, by reason. */
const GATE_DIFFERS: Table = {
  dynamicRef: [
    'dynamicRef.json › A $dynamicRef to a $dynamicAnchor in the same schema resource behaves like a normal $ref to an $anchor › An array of strings is valid',
    'dynamicRef.json › A $dynamicRef to an $anchor in the same schema resource behaves like a normal $ref to an $anchor › An array of strings is valid',
    'dynamicRef.json › A $dynamicRef resolves to the first $dynamicAnchor still in scope that is encountered when the schema is evaluated › An array of strings is valid',
    'dynamicRef.json › A $dynamicRef without anchor in fragment behaves identical to $ref › An array of numbers is valid',
    "dynamicRef.json › A $dynamicRef with intermediate scopes that don't include a matching $dynamicAnchor does not affect dynamic scope resolution › An array of strings is valid",
    'dynamicRef.json › An $anchor with the same name as a $dynamicAnchor is not used for dynamic scope resolution › Any array is valid',
    'dynamicRef.json › A $dynamicRef without a matching $dynamicAnchor in the same schema resource behaves like a normal $ref to $anchor › Any array is valid',
    'dynamicRef.json › A $dynamicRef with a non-matching $dynamicAnchor in the same schema resource behaves like a normal $ref to $anchor › Any array is valid',
    'dynamicRef.json › tests for implementation dynamic anchor and reference link › correct extended schema',
    'dynamicRef.json › $ref and $dynamicAnchor are independent of order - $defs first › correct extended schema',
    'dynamicRef.json › $ref and $dynamicAnchor are independent of order - $ref first › correct extended schema',
    'dynamicRef.json › $ref to $dynamicRef finds detached $dynamicAnchor › number is valid',
    'dynamicRef.json › $ref to $dynamicRef finds detached $dynamicAnchor › non-number is invalid',
    'dynamicRef.json › $dynamicRef skips over intermediate resources - direct reference › integer property passes',
    'dynamicRef.json › $dynamicRef avoids the root of each schema, but scopes are still registered › data is sufficient for schema at second#/$defs/length',
    'dynamicRef.json › $dynamicRef avoids the root of each schema, but scopes are still registered › data is not sufficient for schema at second#/$defs/length',
    'optional/dynamicRef.json › $dynamicRef skips over intermediate resources - pointer reference across resource boundary › integer property passes',
  ],
  bignum: [
    'optional/float-overflow.json › all integers are multiples of 0.5, if overflow is handled › valid if optional overflow handling is implemented',
  ],
};

/** Groups that do not compile even with strict mode off, by reason. */
const SEMANTICS_REFUSED: Table = {
  dynamicRef: [
    'dynamicRef.json › A $dynamicRef that initially resolves to a schema with a matching $dynamicAnchor resolves to the first $dynamicAnchor in the dynamic scope',
    'dynamicRef.json › A $dynamicRef that initially resolves to a schema without a matching $dynamicAnchor behaves like a normal $ref to $anchor',
    'dynamicRef.json › after leaving a dynamic scope, it is not used by a $dynamicRef',
  ],
  emptyEnum: ['enum.json › empty enum'],
  otherDrafts: ['optional/cross-draft.json › *'],
  formatVocabulary: ['optional/format-assertion.json › *'],
  idInUnknownKeyword: ['optional/unknownKeyword.json › *'],
  recursion: [
    'ref.json › refs with relative uris and defs',
    'ref.json › relative refs with absolute uris and defs',
    'ref.json › URN ref with nested pointer ref',
  ],
};

/** Tests whose verdict differs with strict mode off, by reason. */
const SEMANTICS_DIFFERS: Table = {
  dynamicRef: [
    'dynamicRef.json › A $dynamicRef to a $dynamicAnchor in the same schema resource behaves like a normal $ref to an $anchor › An array of strings is valid',
    'dynamicRef.json › A $dynamicRef to an $anchor in the same schema resource behaves like a normal $ref to an $anchor › An array of strings is valid',
    'dynamicRef.json › A $dynamicRef resolves to the first $dynamicAnchor still in scope that is encountered when the schema is evaluated › An array of strings is valid',
    'dynamicRef.json › A $dynamicRef without anchor in fragment behaves identical to $ref › An array of numbers is valid',
    "dynamicRef.json › A $dynamicRef with intermediate scopes that don't include a matching $dynamicAnchor does not affect dynamic scope resolution › An array of strings is valid",
    'dynamicRef.json › An $anchor with the same name as a $dynamicAnchor is not used for dynamic scope resolution › Any array is valid',
    'dynamicRef.json › A $dynamicRef without a matching $dynamicAnchor in the same schema resource behaves like a normal $ref to $anchor › Any array is valid',
    'dynamicRef.json › A $dynamicRef with a non-matching $dynamicAnchor in the same schema resource behaves like a normal $ref to $anchor › Any array is valid',
    'dynamicRef.json › multiple dynamic paths to the $dynamicRef keyword › number list with string values',
    'dynamicRef.json › multiple dynamic paths to the $dynamicRef keyword › string list with number values',
    'dynamicRef.json › tests for implementation dynamic anchor and reference link › correct extended schema',
    'dynamicRef.json › $ref and $dynamicAnchor are independent of order - $defs first › correct extended schema',
    'dynamicRef.json › $ref and $dynamicAnchor are independent of order - $ref first › correct extended schema',
    'dynamicRef.json › $ref to $dynamicRef finds detached $dynamicAnchor › number is valid',
    'dynamicRef.json › $ref to $dynamicRef finds detached $dynamicAnchor › non-number is invalid',
    'dynamicRef.json › $dynamicRef points to a boolean schema › follow $dynamicRef to a false schema',
    'dynamicRef.json › $dynamicRef skips over intermediate resources - direct reference › integer property passes',
    'dynamicRef.json › $dynamicRef avoids the root of each schema, but scopes are still registered › data is sufficient for schema at second#/$defs/length',
    'dynamicRef.json › $dynamicRef avoids the root of each schema, but scopes are still registered › data is not sufficient for schema at second#/$defs/length',
    'optional/dynamicRef.json › $dynamicRef skips over intermediate resources - pointer reference across resource boundary › integer property passes',
    'unevaluatedItems.json › unevaluatedItems with $dynamicRef › with no unevaluated items',
    'unevaluatedItems.json › unevaluatedItems with $dynamicRef › with unevaluated items',
    'unevaluatedProperties.json › unevaluatedProperties with $dynamicRef › with no unevaluated properties',
    'unevaluatedProperties.json › unevaluatedProperties with $dynamicRef › with unevaluated properties',
  ],
  formatAsserted: [
    'format.json › email format › invalid email string is only an annotation by default',
    'format.json › regex format › invalid regex string is only an annotation by default',
    'format.json › ipv4 format › invalid ipv4 string is only an annotation by default',
    'format.json › ipv6 format › invalid ipv6 string is only an annotation by default',
    'format.json › hostname format › invalid hostname string is only an annotation by default',
    'format.json › date format › invalid date string is only an annotation by default',
    'format.json › date-time format › invalid date-time string is only an annotation by default',
    'format.json › time format › invalid time string is only an annotation by default',
    'format.json › json-pointer format › invalid json-pointer string is only an annotation by default',
    'format.json › relative-json-pointer format › invalid relative-json-pointer string is only an annotation by default',
    'format.json › uri format › invalid uri string is only an annotation by default',
    'format.json › uri-reference format › invalid uri-reference string is only an annotation by default',
    'format.json › uri-template format › invalid uri-template string is only an annotation by default',
    'format.json › uuid format › invalid uuid string is only an annotation by default',
    'format.json › duration format › invalid duration string is only an annotation by default',
  ],
  bignum: [
    'optional/float-overflow.json › all integers are multiples of 0.5, if overflow is handled › valid if optional overflow handling is implemented',
  ],
  formatLibrary: [
    'optional/format/date-time.json › validation of date-time strings › a numeric offset without minutes is invalid',
    'optional/format/date-time.json › validation of date-time strings › hour 24 is invalid even with a leap second',
    'optional/format/date-time.json › validation of date-time strings › a second fraction of fifteen nines is valid',
    'optional/format/duration.json › validation of duration strings › years and days cannot appear without months',
    'optional/format/duration.json › validation of duration strings › hours and seconds cannot appear without minutes',
    'optional/format/ecmascript-regex.json › \\a is not an ECMA 262 control escape › when used as a pattern',
    'optional/format/email.json › validation of e-mail addresses › a quoted string with a space in the local part is valid',
    'optional/format/email.json › validation of e-mail addresses › a quoted string with a double dot in the local part is valid',
    'optional/format/email.json › validation of e-mail addresses › a quoted string with a @ in the local part is valid',
    'optional/format/email.json › validation of e-mail addresses › an IPv4-address-literal after the @ is valid',
    'optional/format/email.json › validation of e-mail addresses › an IPv6-address-literal after the @ is valid',
    'optional/format/hostname.json › validation of host names › trailing dot',
    'optional/format/hostname.json › validation of A-label (punycode) host names › invalid Punycode',
    'optional/format/hostname.json › validation of A-label (punycode) host names › contains illegal char U+302E Hangul single dot tone mark',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Begins with a Spacing Combining Mark',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Begins with a Nonspacing Mark',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Begins with an Enclosing Mark',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Exceptions that are DISALLOWED, right-to-left chars',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Exceptions that are DISALLOWED, left-to-right chars',
    "optional/format/hostname.json › validation of A-label (punycode) host names › MIDDLE DOT with no preceding 'l'",
    'optional/format/hostname.json › validation of A-label (punycode) host names › MIDDLE DOT with nothing preceding',
    "optional/format/hostname.json › validation of A-label (punycode) host names › MIDDLE DOT with no following 'l'",
    'optional/format/hostname.json › validation of A-label (punycode) host names › MIDDLE DOT with nothing following',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Greek KERAIA not followed by Greek',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Greek KERAIA not followed by anything',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Hebrew GERESH not preceded by Hebrew',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Hebrew GERESH not preceded by anything',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Hebrew GERSHAYIM not preceded by Hebrew',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Hebrew GERSHAYIM not preceded by anything',
    'optional/format/hostname.json › validation of A-label (punycode) host names › KATAKANA MIDDLE DOT with no Hiragana, Katakana, or Han',
    'optional/format/hostname.json › validation of A-label (punycode) host names › KATAKANA MIDDLE DOT with no other characters',
    'optional/format/hostname.json › validation of A-label (punycode) host names › Arabic-Indic digits mixed with Extended Arabic-Indic digits',
    'optional/format/hostname.json › validation of A-label (punycode) host names › ZERO WIDTH JOINER not preceded by Virama',
    'optional/format/hostname.json › validation of A-label (punycode) host names › ZERO WIDTH JOINER not preceded by anything',
    'optional/format/hostname.json › validation of A-label (punycode) host names › contains "--" in the 3rd and 4th position',
    'optional/format/uri-reference.json › validation of URI References › a double quote in a path',
    'optional/format/uri-reference.json › validation of URI References › square brackets outside an authority',
    'optional/format/uri-reference.json › validation of URI References › a non-numeric port in a network-path reference',
    'optional/format/uri-reference.json › validation of URI References › more than one at-sign in the authority',
    'optional/format/uri-reference.json › validation of URI References › a leading zero in the IPv4 part of an IPv6 literal',
    'optional/format/uri-reference.json › validation of URI References › a colon in the first segment of a relative-path reference',
    'optional/format/uri-template.json › format: uri-template › a dotted variable name is valid',
    'optional/format/uri-template.json › format: uri-template › a delete character in a literal is invalid',
    'optional/format/uri-template.json › format: uri-template › an apostrophe in a literal is valid',
    'optional/format/uri.json › validation of URIs › non-numeric port is invalid',
    'optional/format/uri.json › validation of URIs › leading zero in an embedded IPv4 address is invalid',
    'optional/format/uri.json › validation of URIs › square brackets are not allowed in a path segment',
    'optional/format/uuid.json › uuid format › URN prefixed UUID is invalid',
  ],
  unknownFormat: [
    'optional/format/idn-email.json › validation of an internationalized e-mail addresses › an invalid e-mail/idn e-mail address',
    'optional/format/idn-email.json › validation of an internationalized e-mail addresses › a fullwidth commercial at is not a local-part separator',
    'optional/format/idn-hostname.json › validation of internationalized host names › illegal first char U+302E Hangul single dot tone mark',
    'optional/format/idn-hostname.json › validation of internationalized host names › contains illegal char U+302E Hangul single dot tone mark',
    'optional/format/idn-hostname.json › validation of internationalized host names › a single label of 64 characters is too long',
    'optional/format/idn-hostname.json › validation of internationalized host names › invalid label, correct Punycode',
    'optional/format/idn-hostname.json › validation of internationalized host names › invalid Punycode',
    'optional/format/idn-hostname.json › validation of internationalized host names › U-label contains "--" in the 3rd and 4th position',
    'optional/format/idn-hostname.json › validation of internationalized host names › U-label starts with a dash',
    'optional/format/idn-hostname.json › validation of internationalized host names › U-label ends with a dash',
    'optional/format/idn-hostname.json › validation of internationalized host names › U-label starts and ends with a dash',
    'optional/format/idn-hostname.json › validation of internationalized host names › Begins with a Spacing Combining Mark',
    'optional/format/idn-hostname.json › validation of internationalized host names › Begins with a Nonspacing Mark',
    'optional/format/idn-hostname.json › validation of internationalized host names › Begins with an Enclosing Mark',
    'optional/format/idn-hostname.json › validation of internationalized host names › Exceptions that are DISALLOWED, right-to-left chars',
    'optional/format/idn-hostname.json › validation of internationalized host names › Exceptions that are DISALLOWED, left-to-right chars',
    "optional/format/idn-hostname.json › validation of internationalized host names › MIDDLE DOT with no preceding 'l'",
    'optional/format/idn-hostname.json › validation of internationalized host names › MIDDLE DOT with nothing preceding',
    "optional/format/idn-hostname.json › validation of internationalized host names › MIDDLE DOT with no following 'l'",
    'optional/format/idn-hostname.json › validation of internationalized host names › MIDDLE DOT with nothing following',
    'optional/format/idn-hostname.json › validation of internationalized host names › Greek KERAIA not followed by Greek',
    'optional/format/idn-hostname.json › validation of internationalized host names › Greek KERAIA not followed by anything',
    'optional/format/idn-hostname.json › validation of internationalized host names › Hebrew GERESH not preceded by Hebrew',
    'optional/format/idn-hostname.json › validation of internationalized host names › Hebrew GERESH not preceded by anything',
    'optional/format/idn-hostname.json › validation of internationalized host names › Hebrew GERSHAYIM not preceded by Hebrew',
    'optional/format/idn-hostname.json › validation of internationalized host names › Hebrew GERSHAYIM not preceded by anything',
    'optional/format/idn-hostname.json › validation of internationalized host names › KATAKANA MIDDLE DOT with no Hiragana, Katakana, or Han',
    'optional/format/idn-hostname.json › validation of internationalized host names › KATAKANA MIDDLE DOT with no other characters',
    'optional/format/idn-hostname.json › validation of internationalized host names › Arabic-Indic digits mixed with Extended Arabic-Indic digits',
    'optional/format/idn-hostname.json › validation of internationalized host names › ZERO WIDTH JOINER not preceded by Virama',
    'optional/format/idn-hostname.json › validation of internationalized host names › ZERO WIDTH JOINER not preceded by anything',
    'optional/format/idn-hostname.json › validation of internationalized host names › empty string',
    'optional/format/idn-hostname.json › validation of internationalized host names › zero width non-joiner must pass at every occurrence',
    'optional/format/idn-hostname.json › validation of internationalized host names › Bidi domain name with a digit-first label is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › label starting with a digit before a right-to-left letter is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › left-to-right label containing a right-to-left letter is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › right-to-left label mixing both digit types is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › A-label that decodes to a disallowed code point is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › A-label that decodes to a Bidi rule violation is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › a U-label whose A-label form is longer than 63 octets is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › empty label between two dots is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › a name longer than 253 characters is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › A-label that decodes to only ASCII is invalid',
    'optional/format/idn-hostname.json › validation of internationalized host names › non-canonical Punycode that does not re-encode to itself is invalid',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › single dot',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › single ideographic full stop',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › single fullwidth full stop',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › single halfwidth ideographic full stop',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › leading dot',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › leading ideographic full stop',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › leading fullwidth full stop',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › leading halfwidth ideographic full stop',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › trailing dot',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › trailing ideographic full stop',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › trailing fullwidth full stop',
    'optional/format/idn-hostname.json › validation of separators in internationalized host names › trailing halfwidth ideographic full stop',
    'optional/format/iri-reference.json › validation of IRI References › an invalid IRI Reference',
    'optional/format/iri-reference.json › validation of IRI References › an invalid IRI fragment',
    'optional/format/iri.json › validation of IRIs › an IPv6 address without enclosing brackets is invalid',
    'optional/format/iri.json › validation of IRIs › an invalid relative IRI Reference',
    'optional/format/iri.json › validation of IRIs › an invalid IRI',
    'optional/format/iri.json › validation of IRIs › an invalid IRI though valid IRI reference',
    'optional/format/iri.json › validation of IRIs › an IPv6 host whose embedded IPv4 has a leading zero is invalid',
    'optional/format/iri.json › validation of IRIs › a trailing newline after a valid IRI is invalid',
  ],
  protoName: [
    'properties.json › properties whose names are Javascript object property names › __proto__ not valid',
  ],
  unevaluated: [
    'unevaluatedItems.json › unevaluatedItems with nested items › with no additional items',
    'unevaluatedItems.json › unevaluatedItems with nested items › with invalid additional item',
    'unevaluatedItems.json › unevaluatedItems depends on adjacent contains › contains passes, second item is not evaluated',
    'unevaluatedItems.json › unevaluatedItems depends on multiple nested contains › 7 not evaluated, fails unevaluatedItems',
    "unevaluatedItems.json › unevaluatedItems and contains interact to control item dependency relationship › only b's are invalid",
    "unevaluatedItems.json › unevaluatedItems and contains interact to control item dependency relationship › only c's are invalid",
    "unevaluatedItems.json › unevaluatedItems and contains interact to control item dependency relationship › only b's and c's are invalid",
    "unevaluatedItems.json › unevaluatedItems and contains interact to control item dependency relationship › only a's and c's are invalid",
    'unevaluatedItems.json › unevaluatedItems with minContains = 0 › all items evaluated by contains',
    'unevaluatedItems.json › unevaluatedItems can see annotations from if without then and else › valid in case if is evaluated',
    'unevaluatedProperties.json › unevaluatedProperties with if/then/else, then not defined › when if is true and has no unevaluated properties',
    'unevaluatedProperties.json › unevaluatedProperties with if/then/else, then not defined › when if is false and has unevaluated properties',
    'unevaluatedProperties.json › unevaluatedProperties can see annotations from if without then and else › valid in case if is evaluated',
  ],
  vocabulary: [
    'vocabulary.json › schema that uses custom metaschema with with no validation vocabulary › no validation: invalid number, but it still validates',
  ],
};

interface SuiteTest {
  readonly description: string;
  readonly data: unknown;
  readonly valid: boolean;
}

interface Group {
  readonly file: string;
  readonly description: string;
  readonly schema: unknown;
  readonly tests: readonly SuiteTest[];
}

/** What one configuration made of the suite. */
interface Outcome {
  /** Groups whose schema did not compile, with the error message. */
  readonly refused: ReadonlyMap<string, string>;
  /** Tests whose verdict differs from the suite's (a throw counts as differing). */
  readonly differs: readonly string[];
  readonly passed: { readonly core: number; readonly optional: number };
  readonly total: { readonly core: number; readonly optional: number };
}

const SUITE = corpusPath('json-schema-test-suite');
const TESTS = path.join(SUITE, 'tests', 'draft2020-12');
const REMOTES = path.join(SUITE, 'remotes');
/** Remotes of other drafts: an Ajv2020 cannot process their metaschemas. */
const OTHER_DRAFT_REMOTES = /^(draft3|draft4|draft6|draft7|draft2019-09|v1)\//;

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));

const GROUPS: readonly Group[] = filesUnder(TESTS).flatMap((file) =>
  (readJson(path.join(TESTS, file)) as Omit<Group, 'file'>[]).map((g) => ({ ...g, file })),
);

/** Registers every draft 2020-12 remote under its test-suite URL; returns the ones that failed. */
function registerRemotes(ajv: Ajv2020): string[] {
  return filesUnder(REMOTES)
    .filter((file) => !OTHER_DRAFT_REMOTES.test(file))
    .filter((file) => {
      try {
        ajv.addSchema(
          readJson(path.join(REMOTES, file)) as object,
          `http://localhost:1234/${file}`,
        );
        return false;
      } catch {
        return true;
      }
    });
}

function run(ajv: Ajv2020): Outcome {
  const refused = new Map<string, string>();
  const differs: string[] = [];
  const passed = { core: 0, optional: 0 };
  const total = { core: 0, optional: 0 };
  for (const group of GROUPS) {
    const part = group.file.startsWith('optional/') ? 'optional' : 'core';
    total[part] += group.tests.length;
    const key = `${group.file} › ${group.description}`;
    let validate;
    try {
      validate = ajv.compile(group.schema as object);
    } catch (error) {
      refused.set(key, error instanceof Error ? error.message : String(error));
      continue;
    }
    for (const test of group.tests) {
      if (verdict(validate, test.data) === test.valid) passed[part] += 1;
      else differs.push(`${key} › ${test.description}`);
    }
  }
  return { refused, differs, passed, total };
}

function verdict(validate: (data: unknown) => boolean, data: unknown): boolean | 'threw' {
  try {
    return validate(data);
  } catch {
    return 'threw';
  }
}

/** The table's keys with `file › *` expanded to every group of the file, each with its reason. */
function expand(table: Table): Map<string, Reason> {
  const keys = new Map<string, Reason>();
  for (const [reason, entries] of Object.entries(table) as [Reason, readonly string[]][]) {
    for (const entry of entries) {
      const file = entry.endsWith(' › *') ? entry.slice(0, -4) : undefined;
      const expanded =
        file === undefined
          ? [entry]
          : GROUPS.filter((g) => g.file === file).map((g) => `${file} › ${g.description}`);
      for (const key of expanded) keys.set(key, reason);
    }
  }
  return keys;
}

function percent(part: number, whole: number): string {
  return `${((100 * part) / whole).toFixed(1)}%`;
}

function report(name: string, outcome: Outcome): void {
  const passed = outcome.passed.core + outcome.passed.optional;
  const total = outcome.total.core + outcome.total.optional;
  console.log(
    `JSON Schema Test Suite 2020-12, ${name}: ${passed}/${total} tests pass (${percent(passed, total)}); ` +
      `core ${outcome.passed.core}/${outcome.total.core} (${percent(outcome.passed.core, outcome.total.core)}), ` +
      `optional ${outcome.passed.optional}/${outcome.total.optional}; ` +
      `${outcome.refused.size} groups refused at compile, ${outcome.differs.length} tests differ; ` +
      `of the tests whose schema compiles, ${passed}/${passed + outcome.differs.length} agree`,
  );
}

function expectExactly(outcome: Outcome, refusedTable: Table, differsTable: Table): void {
  const refused = expand(refusedTable);
  expect([...outcome.refused.keys()].sort()).toEqual([...refused.keys()].sort());
  for (const [key, message] of outcome.refused) {
    const evidence = EVIDENCE[refused.get(key)!];
    expect(evidence, `no evidence pattern for ${key}`).toBeDefined();
    expect(message, key).toMatch(evidence!);
  }
  expect([...outcome.differs].sort()).toEqual([...expand(differsTable).keys()].sort());
}

describe('the JSON Schema Test Suite (draft 2020-12) through the gate validator', () => {
  it('finds the suite and every draft 2020-12 remote registers', () => {
    expect(GROUPS.length).toBeGreaterThan(400);
    expect(registerRemotes(createValidator())).toEqual([]);
  });

  it('as the gate loads schemas: refuses and differs on exactly the listed cases', () => {
    const ajv = createValidator();
    registerRemotes(ajv);
    const outcome = run(ajv);
    report('gate (strict)', outcome);
    expectExactly(outcome, GATE_REFUSED, GATE_DIFFERS);
  });

  it('with the gate validation semantics: refuses and differs on exactly the listed cases', () => {
    const ajv = new Ajv2020({ ...VALIDATOR_OPTIONS, strict: false, logger: false });
    addGateFormats(ajv);
    registerRemotes(ajv);
    const outcome = run(ajv);
    report('validation semantics (strict off)', outcome);
    expectExactly(outcome, SEMANTICS_REFUSED, SEMANTICS_DIFFERS);
  });

  it('explains every listed reason and lists no reason it does not use', () => {
    const tables = [GATE_REFUSED, GATE_DIFFERS, SEMANTICS_REFUSED, SEMANTICS_DIFFERS];
    const used = new Set(tables.flatMap((t) => Object.keys(t)));
    expect([...used].sort()).toEqual(Object.keys(REASONS).sort());
    for (const text of Object.values(REASONS)) expect(text.length).toBeGreaterThan(40);
  });

  it('counts only own properties: the README trap group passes where ajv defaults fail it', () => {
    const group = GROUPS.find((g) =>
      g.description.startsWith(
        'required properties whose names are Javascript object property names',
      ),
    )!;
    const gate = new Ajv2020({ ...VALIDATOR_OPTIONS, strict: false }).compile(
      group.schema as object,
    );
    const defaults = new Ajv2020({ strict: false }).compile(group.schema as object);
    for (const test of group.tests) expect(gate(test.data), test.description).toBe(test.valid);
    expect(group.tests.filter((t) => defaults(t.data) !== t.valid).length).toBeGreaterThan(0);
  });
});
