import type { ToolSpec } from '../tool-spec.js';

/**
 * Identity for typing: returns the spec unchanged, so that a deployment's tool file gets its
 * argument type `A` checked in `semantics`, `references`, `card` and the other callbacks. Nothing is
 * validated here; `createToolRegistry` checks every definition at start-up.
 */
export function defineTool<A = Record<string, unknown>>(spec: ToolSpec<A>): ToolSpec<A> {
  return spec;
}
