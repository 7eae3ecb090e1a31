/**
 * What a tool's input schema declares about the numbers of its arguments, so that a `number`
 * property reaches Cedar as a `decimal` whatever its value (`5` as `decimal("5.0")`) and policies
 * can compare it one way.
 */
import type { JsonSchema } from '../tool-spec.js';
import { UNKNOWN_PLACE, type NumberKind, type Place } from './cedar-values.js';

/** How many `$ref`s one place may follow before it is taken as undeclared (a cycle). */
const MAX_REFS = 16;

/**
 * The root place of arguments validated by `schema`. A place follows `properties`,
 * `additionalProperties`, `prefixItems`, `items` and local `$ref`s; a place reached otherwise
 * (through `anyOf`, `oneOf`, `allOf`, `patternProperties`, …) declares nothing.
 */
export function schemaPlace(schema: JsonSchema): Place {
  return placeOf(schema, schema);
}

function placeOf(root: JsonSchema, node: unknown): Place {
  const schema = resolve(root, node);
  if (schema === undefined) return UNKNOWN_PLACE;
  return {
    kind: kindOf(schema),
    member: (key) => placeOf(root, memberSchema(schema, key)),
    element: (index) => placeOf(root, elementSchema(schema, index)),
  };
}

type SchemaObject = Readonly<Record<string, unknown>>;

function isSchemaObject(node: unknown): node is SchemaObject {
  return typeof node === 'object' && node !== null && !Array.isArray(node);
}

/** `node` with a local `$ref` chain followed; its own `type` wins over the target's. */
function resolve(root: JsonSchema, node: unknown): SchemaObject | undefined {
  let current = node;
  for (let hops = 0; hops <= MAX_REFS; hops += 1) {
    if (!isSchemaObject(current)) return undefined;
    const ref = current['$ref'];
    if (typeof ref !== 'string' || 'type' in current) return current;
    current = pointer(root, ref);
  }
  return undefined;
}

function pointer(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  const tokens = decoded.split('/').slice(1);
  let node: unknown = root;
  for (const token of tokens) {
    if (!isSchemaObject(node) && !Array.isArray(node)) return undefined;
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    node = Object.hasOwn(node, key) ? (node as SchemaObject)[key] : undefined;
  }
  return node;
}

function kindOf(schema: SchemaObject): NumberKind | undefined {
  const type = schema['type'];
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('number')) return 'decimal';
  if (types.includes('integer')) return 'long';
  return undefined;
}

function memberSchema(schema: SchemaObject, key: string): unknown {
  const properties = schema['properties'];
  if (isSchemaObject(properties) && Object.hasOwn(properties, key)) return properties[key];
  return schema['additionalProperties'];
}

function elementSchema(schema: SchemaObject, index: number): unknown {
  const prefix = schema['prefixItems'];
  if (Array.isArray(prefix) && index < prefix.length) return prefix[index];
  return schema['items'];
}
