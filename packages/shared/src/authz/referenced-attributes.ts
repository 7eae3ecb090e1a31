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
