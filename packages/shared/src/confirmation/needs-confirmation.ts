/** Whether a call must wait for a human before it may run (DESIGN §3, §4). */
import type { ObjectsById, ToolSpec } from '../tool-spec.js';

/**
 * Destructive → always (a destructive tool cannot opt out); otherwise the tool's
 * `requiresConfirmation(args, objects)`, default false. `args` are the schema-validated arguments,
 * so they are the tool's argument type `A`.
 */
export function needsConfirmation<A>(
  tool: ToolSpec<A>,
  args: Readonly<Record<string, unknown>>,
  objects: ObjectsById,
): boolean {
  if (tool.sideEffect === 'destructive') return true;
  return tool.requiresConfirmation?.(args as A, objects) ?? false;
}
