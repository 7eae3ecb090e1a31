/**
 * Whether a tool's input schema can be sent to OpenAI with `strict: true` unchanged. Strict mode
 * constrains decoding to a subset of JSON Schema and needs every property listed in `required`;
 * a schema outside that subset is sent with `strict: false` rather than rewritten, because the
 * usual rewrite (optional properties made nullable and required) would have the model send
 * `null` for arguments that the gate's schema does not accept as null.
 */
import { resolveLocalRef } from './find-schema-problems.js';

type SchemaObject = Readonly<Record<string, unknown>>;

/**
 * Keywords OpenAI documents as supported in strict mode, conservatively: a keyword missing here
 * costs only the `strict` flag, a keyword wrongly present costs a 400 from the API.
 */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** String formats OpenAI strict mode supports. */
const STRICT_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** OpenAI's documented nesting limit for strict schemas. */
const MAX_DEPTH = 10;

/** Can `schema` be sent as a strict function's `parameters` exactly as it is? */
export function isOpenAiStrictSchema(schema: unknown): boolean {
  return (
    isObject(schema) && schema.type === 'object' && !('anyOf' in schema) && fits(schema, schema, 0)
  );
}

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fits(node: unknown, root: unknown, depth: number): boolean {
  if (!isObject(node) || depth > MAX_DEPTH) return false;
  if (!Object.keys(node).every((k) => STRICT_KEYWORDS.has(k))) return false;
  if (typeof node.format === 'string' && !STRICT_FORMATS.has(node.format)) return false;
  if (!Object.hasOwn(node, 'type') && !['anyOf', '$ref', 'enum', 'const'].some((k) => k in node)) {
    return false;
  }
  if (typeof node.$ref === 'string' && resolveLocalRef(root, node.$ref) === undefined) return false;
  return objectFits(node) && childrenOf(node).every((child) => fits(child, root, depth + 1));
}

/** An object must be closed and require every property it lists. */
function objectFits(node: SchemaObject): boolean {
  const types: unknown[] = Array.isArray(node.type) ? node.type : [node.type];
  if (!types.includes('object') && !('properties' in node)) return true;
  const properties = isObject(node.properties) ? Object.keys(node.properties) : [];
  const required = Array.isArray(node.required) ? node.required : [];
  return node.additionalProperties === false && properties.every((p) => required.includes(p));
}

function childrenOf(node: SchemaObject): unknown[] {
  const children: unknown[] = [];
  if (isObject(node.properties)) children.push(...Object.values(node.properties));
  if (isObject(node.$defs)) children.push(...Object.values(node.$defs));
  if ('items' in node) children.push(node.items);
  if (Array.isArray(node.anyOf)) children.push(...(node.anyOf as unknown[]));
  return children;
}
