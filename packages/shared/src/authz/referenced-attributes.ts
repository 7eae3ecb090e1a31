/**
 * Which attribute names a policy can read. Cedar reads an attribute only through `.name`,
 * `["name"]` or `has name` with a literal name (both appear as `attr` in the policy's JSON form),
 * so the names collected here are every attribute the policy can observe; an object attribute no
 * policy names cannot change a decision and need not cross into the engine.
 */
import type { PolicyJson } from '@cedar-policy/cedar-wasm/nodejs';

/**
 * Every `attr` name in the policy's JSON, at any depth. A superset is harmless (the attribute is
 * merely passed); a name missed would hide an attribute from policy, so the walk is generic rather
 * than following the expression grammar.
 */
export function referencedAttributes(policy: PolicyJson): Set<string> {
  const names = new Set<string>();
  collect(policy, names);
  return names;
}

function collect(node: unknown, names: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collect(item, names);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'attr' && typeof value === 'string') names.add(value);
    else if (key === 'attr' && Array.isArray(value)) {
      for (const name of value) if (typeof name === 'string') names.add(name);
    } else collect(value, names);
  }
}

/**
 * True when the policy can observe `context.args` (or `context`) as a whole — compare it, put it
 * in a set, pass it to a function — rather than only read or `has`-test its attributes by name.
 * Only then must every argument be sent; otherwise those the policies name are enough.
 */
export function observesWholeArguments(policy: PolicyJson): boolean {
  return observesWhole(policy.conditions);
}

function isVar(node: unknown, name: string): boolean {
  return typeof node === 'object' && node !== null && (node as { Var?: unknown }).Var === name;
}

/** `{ ".": { left, attr } }` or `{ has: { left, attr } }`: an attribute read or presence test. */
function attributeOp(node: Record<string, unknown>): { left: unknown; attr: unknown } | undefined {
  const keys = Object.keys(node);
  if (keys.length !== 1 || (keys[0] !== '.' && keys[0] !== 'has')) return undefined;
  const op = node[keys[0]] as { left?: unknown; attr?: unknown } | undefined;
  return op === undefined ? undefined : { left: op.left, attr: op.attr };
}

function isContextArgs(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const op = attributeOp(node as Record<string, unknown>);
  return op !== undefined && isVar(op.left, 'context') && op.attr === 'args';
}

function observesWhole(node: unknown): boolean {
  if (Array.isArray(node)) return node.some((item) => observesWhole(item));
  if (typeof node !== 'object' || node === null) return false;
  if (isVar(node, 'context')) return true;
  const record = node as Record<string, unknown>;
  const op = attributeOp(record);
  if (op !== undefined) {
    // `context.x`, `context has x`, `context.args.x`, `context.args has x`: reads by name.
    if (isVar(op.left, 'context') && op.attr !== 'args') return false;
    if (isVar(op.left, 'context') && Object.keys(record)[0] === 'has') return false;
    if (isContextArgs(op.left)) return false;
    if (isVar(op.left, 'context')) return true;
    return observesWhole(op.left);
  }
  return Object.values(record).some((value) => observesWhole(value));
}
