/** Whether a call must wait for a human before it may run (DESIGN §3, §4). */
import type { ObjectsById, ToolSpec } from '../tool-spec.js';
import { sideEffectDefaults } from '../tools/side-effect-defaults.js';

/**
 * By the class's default (`SIDE_EFFECT_DEFAULTS`): destructive → always (a destructive tool
 * cannot opt out); otherwise the tool's `requiresConfirmation(args, objects)`, default false. `args` are the schema-validated arguments,
 * so they are the tool's argument type `A`.
 */
export function needsConfirmation<A>(
  tool: ToolSpec<A>,
  args: Readonly<Record<string, unknown>>,
  objects: ObjectsById,
): boolean {
  if (sideEffectDefaults(tool.sideEffect).confirmation === 'always') return true;
  return tool.requiresConfirmation?.(args as A, objects) ?? false;
}
