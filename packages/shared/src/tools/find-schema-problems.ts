/**
 * Load-time checks of a tool's input schema that JSON Schema itself cannot express: every object
 * closed, every array's items described, no identity or reserved property names, and the whole
 * schema in one self-contained document so that these checks see everything the validator sees.
 */
import { FORBIDDEN_PROPERTY_NAMES, isIdentityField } from './identity-fields.js';

type SchemaObject = Readonly<Record<string, unknown>>;

/** What a schema guarantees about the objects and arrays it accepts. */
interface Closure {
  /** Every object it accepts has only the properties it lists. */
  readonly objects: boolean;
  /** Every array it accepts has items described by a schema. */
  readonly arrays: boolean;
}

const CLOSED: Closure = { objects: true, arrays: true };
const OPEN: Closure = { objects: false, arrays: false };

/** Keywords whose subschemas apply to the same instance as their parent. */
const IN_PLACE = new Set(['allOf', 'anyOf', 'oneOf', 'then', 'else', 'dependentSchemas']);
/** Keywords whose subschemas only test (or test names, or items already described by `items`). */
const GUARDS = new Set(['not', 'if', 'contains', 'propertyNames']);
/** Keywords holding definitions: checked where a `$ref` uses them. */
const DEFINITIONS = new Set(['$defs', 'definitions']);

const SINGLE_SCHEMA_KEYWORDS = [
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
] as const;
const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
] as const;

/** Identifier keywords that would let a schema reach outside itself or be reached by name. */
const NON_LOCAL_KEYWORDS = [
  '$id',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
] as const;

/** One subschema of a node, with the keyword that holds it and its JSON pointer. */
interface Child {
  readonly keyword: string;
  readonly schema: unknown;
  readonly pointer: string;
}

interface Context {
  readonly root: unknown;
  readonly problems: Set<string>;
  readonly visitedRefs: Set<string>;
  /** The pointer of every subschema the node checks walk; a `$ref` may point only at these. */
  readonly subschemas: ReadonlySet<string>;
}

/**
 * Returns every problem of `schema` as a tool input schema, each prefixed with the JSON pointer
 * (`#/properties/filter`) of the subschema concerned. Empty when the schema is acceptable.
 * JSON Schema validity itself (unknown keywords, bad types) is left to the strict validator.
 */
export function findSchemaProblems(schema: unknown): string[] {
  const subschemas = new Set<string>();
  forEachNode(schema, '#', (_node, pointer) => subschemas.add(pointer));
  const ctx: Context = { root: schema, problems: new Set(), visitedRefs: new Set(), subschemas };
  if (!isSchemaObject(schema) || schema.type !== 'object') {
    ctx.problems.add('#: the input schema must have "type": "object"');
  }
  forEachNode(schema, '#', (node, pointer) => checkNode(node, pointer, ctx));
  checkClosure(schema, '#', OPEN, ctx);
  return [...ctx.problems];
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The subschemas directly below `node`. */
function childrenOf(node: SchemaObject, pointer: string): Child[] {
  const children: Child[] = [];
  for (const keyword of SINGLE_SCHEMA_KEYWORDS) {
    if (Object.hasOwn(node, keyword)) {
      children.push({ keyword, schema: node[keyword], pointer: `${pointer}/${keyword}` });
    }
  }
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
    const list = node[keyword];
    if (Object.hasOwn(node, keyword) && Array.isArray(list)) {
      list.forEach((schema, i) =>
        children.push({ keyword, schema, pointer: `${pointer}/${keyword}/${i}` }),
      );
    }
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = node[keyword];
    if (!Object.hasOwn(node, keyword) || !isSchemaObject(map)) continue;
    for (const [name, schema] of Object.entries(map)) {
      children.push({ keyword, schema, pointer: `${pointer}/${keyword}/${escapePointer(name)}` });
    }
  }
  return children;
}

/** Calls `visit` on every object node of the schema document, definitions included. */
function forEachNode(
  schema: unknown,
  pointer: string,
  visit: (node: SchemaObject, pointer: string) => void,
): void {
  if (!isSchemaObject(schema)) return;
  visit(schema, pointer);
  for (const child of childrenOf(schema, pointer)) forEachNode(child.schema, child.pointer, visit);
}

/** Reference, name-loosening and property-name checks of one node. */
function checkNode(node: SchemaObject, pointer: string, ctx: Context): void {
  for (const keyword of NON_LOCAL_KEYWORDS) {
    if (Object.hasOwn(node, keyword)) {
      ctx.problems.add(
        `${pointer}: "${keyword}" is not allowed; a tool schema is one self-contained document`,
      );
    }
  }
  const ref = node.$ref;
  if (Object.hasOwn(node, '$ref') && (typeof ref !== 'string' || !ref.startsWith('#'))) {
    ctx.problems.add(`${pointer}: only local references ("#/$defs/…") are allowed in "$ref"`);
  } else if (typeof ref === 'string' && resolveLocalRef(ctx.root, ref) !== undefined) {
    // A reference into `examples`, `default` or any other non-schema value makes it a schema
    // that the name and closure checks never walked: a `tenant_id` there would be accepted.
    const target = canonicalPointer(ref);
    if (target === undefined || !ctx.subschemas.has(target)) {
      ctx.problems.add(
        `${pointer}: "$ref" must point at a subschema (e.g. "#/$defs/…"), not at ${JSON.stringify(ref)}`,
      );
    }
  }
  for (const keyword of ['patternProperties', 'propertyNames']) {
    if (Object.hasOwn(node, keyword)) {
      ctx.problems.add(
        `${pointer}: "${keyword}" accepts property names that are not listed; list every property in "properties"`,
      );
    }
  }
  for (const name of declaredNames(node)) checkName(name, pointer, ctx);
}

/** Every property name a node declares, requires or makes depend on another. */
function declaredNames(node: SchemaObject): string[] {
  const names: string[] = [];
  const strings = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  if (isSchemaObject(node.properties)) names.push(...Object.keys(node.properties));
  names.push(...strings(node.required));
  if (isSchemaObject(node.dependentSchemas)) names.push(...Object.keys(node.dependentSchemas));
  if (isSchemaObject(node.dependentRequired)) {
    for (const [name, deps] of Object.entries(node.dependentRequired))
      names.push(name, ...strings(deps));
  }
  return names;
}

function checkName(name: string, pointer: string, ctx: Context): void {
  if (FORBIDDEN_PROPERTY_NAMES.has(name)) {
    ctx.problems.add(`${pointer}: "${name}" is a reserved property name`);
  } else if (isIdentityField(name)) {
    ctx.problems.add(
      `${pointer}: "${name}" is an identity field; identity, tenant and authority come from the session, never from the model`,
    );
  }
}

/**
 * Walks the schema as the validator applies it and reports, once per open region, every place
 * where an object may carry unlisted properties or an array undescribed items. `inherited` says
 * what an enclosing in-place schema already guarantees for the same instance.
 */
function checkClosure(schema: unknown, pointer: string, inherited: Closure, ctx: Context): void {
  const own = closureOf(schema, ctx.root, new Set());
  if (!inherited.objects && !own.objects) {
    ctx.problems.add(
      `${pointer}: accepts objects with properties it does not list; set "additionalProperties": false`,
    );
  }
  if (!inherited.arrays && !own.arrays) {
    ctx.problems.add(`${pointer}: accepts arrays whose items it does not describe; set "items"`);
  }
  if (!isSchemaObject(schema)) return;
  for (const child of childrenOf(schema, pointer)) {
    if (DEFINITIONS.has(child.keyword) || isLoosener(child)) continue;
    // In-place subschemas see the same instance, which is now closed or already reported: either
    // way nothing more is said about it there, so one mistake is reported once.
    const childInherited = IN_PLACE.has(child.keyword) || GUARDS.has(child.keyword) ? CLOSED : OPEN;
    checkClosure(child.schema, child.pointer, childInherited, ctx);
  }
  followRef(schema, ctx);
}

/** `additionalProperties: true` and the like: the parent was reported as open already. */
function isLoosener(child: Child): boolean {
  return (
    child.schema === true &&
    (child.keyword === 'additionalProperties' || child.keyword === 'unevaluatedProperties')
  );
}

/** Checks the value subschemas below the target of a local `$ref`, once per target. */
function followRef(node: SchemaObject, ctx: Context): void {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#') || ctx.visitedRefs.has(ref)) return;
  ctx.visitedRefs.add(ref);
  const target = resolveLocalRef(ctx.root, ref);
  if (target === undefined) {
    ctx.problems.add(`${ref}: "$ref" does not resolve inside the schema`);
    return;
  }
  checkClosure(target, ref, CLOSED, ctx);
}

/** Resolves `#` or `#/json/pointer` inside `root`; undefined when it does not resolve. */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = safeDecode(raw)?.replace(/~1/g, '/').replace(/~0/g, '~');
    if (segment === undefined || typeof node !== 'object' || node === null) return undefined;
    if (!Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** `ref` spelt as the walk spells pointers (segments unescaped, then escaped once), or undefined. */
function canonicalPointer(ref: string): string | undefined {
  if (ref === '#') return ref;
  const segments = ref
    .slice(2)
    .split('/')
    .map((raw) => safeDecode(raw)?.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (segments.some((segment) => segment === undefined)) return undefined;
  return `#/${segments.map((segment) => escapePointer(segment ?? '')).join('/')}`;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function typesOf(node: SchemaObject): readonly unknown[] | undefined {
  if (!Object.hasOwn(node, 'type')) return undefined;
  return Array.isArray(node.type) ? (node.type as unknown[]) : [node.type];
}

/** What `schema` on its own (with its in-place subschemas and references) guarantees. */
function closureOf(schema: unknown, root: unknown, refsInProgress: Set<string>): Closure {
  if (schema === false) return CLOSED;
  if (!isSchemaObject(schema)) return schema === true ? OPEN : CLOSED;
  // const and enum accept only literal values written by the deployment.
  if (Object.hasOwn(schema, 'const') || Object.hasOwn(schema, 'enum')) return CLOSED;
  const types = typesOf(schema);
  const admitsObjects = types === undefined || types.includes('object');
  const admitsArrays = types === undefined || types.includes('array');
  const closedHere: Closure = {
    objects: !admitsObjects || closesObjects(schema),
    arrays:
      !admitsArrays || Object.hasOwn(schema, 'items') || Object.hasOwn(schema, 'unevaluatedItems'),
  };
  if (closedHere.objects && closedHere.arrays) return closedHere;
  const viaInPlace = inPlaceClosure(schema, root, refsInProgress);
  return {
    objects: closedHere.objects || viaInPlace.objects,
    arrays: closedHere.arrays || viaInPlace.arrays,
  };
}

function closesObjects(node: SchemaObject): boolean {
  if (Object.hasOwn(node, 'additionalProperties')) return node.additionalProperties === false;
  return node.unevaluatedProperties === false;
}

/** The guarantee an instance gets from having to pass the node's in-place subschemas too. */
function inPlaceClosure(node: SchemaObject, root: unknown, refsInProgress: Set<string>): Closure {
  const of = (s: unknown): Closure => closureOf(s, root, refsInProgress);
  const parts: Closure[] = [];
  if (Array.isArray(node.allOf)) parts.push(...node.allOf.map(of));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches) && branches.length > 0) parts.push(everyOf(branches.map(of)));
  }
  if (Object.hasOwn(node, 'if') && Object.hasOwn(node, 'then') && Object.hasOwn(node, 'else')) {
    parts.push(everyOf([of(node.then), of(node.else)]));
  }
  parts.push(refClosure(node, root, refsInProgress));
  return someOf(parts);
}

function refClosure(node: SchemaObject, root: unknown, refsInProgress: Set<string>): Closure {
  const ref = node.$ref;
  if (typeof ref !== 'string' || refsInProgress.has(ref)) return OPEN;
  const target = resolveLocalRef(root, ref);
  if (target === undefined) return OPEN;
  return closureOf(target, root, new Set([...refsInProgress, ref]));
}

function everyOf(parts: readonly Closure[]): Closure {
  return { objects: parts.every((p) => p.objects), arrays: parts.every((p) => p.arrays) };
}

function someOf(parts: readonly Closure[]): Closure {
  return { objects: parts.some((p) => p.objects), arrays: parts.some((p) => p.arrays) };
}
