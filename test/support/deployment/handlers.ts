/**
 * The test deployment's tools as tool-worker handlers, against the gate's object store. Reads
 * answer at once; writes change the store with compare-and-set on the version the command
 * carries, and a command that finds its own earlier write in place reports success again.
 */
import type { RedisObjectStore } from '@toolgate/platform';
import type { Command, ResolvedObject } from '@toolgate/shared';
import {
  toolError,
  toolOk,
  type ToolContext,
  type ToolHandlers,
  type ToolOutcome,
} from '@toolgate/tool-worker';

/** What the handlers need of the object store. */
export type TestObjects = Pick<RedisObjectStore, 'load' | 'compareAndSet'>;

type Attributes = ResolvedObject['attributes'];

const stale = () => toolError('stale_object', 'The object changed; look again before retrying.');

/**
 * Writes `change(live attributes)` to the command's first object at the command's version, marked
 * with the command's id; past the deadline, nothing is written.
 */
async function write(
  objects: TestObjects,
  command: Command,
  context: ToolContext,
  change: (attributes: Attributes) => Attributes,
): Promise<ResolvedObject | ToolOutcome> {
  const ref = command.objects[0];
  if (ref === undefined) return toolError('invalid_arguments', 'The command names no object.');
  const tenant = command.context.tenant;
  const live = await objects.load(tenant, ref);
  if (live === undefined) return toolError('not_found', 'No such object.');
  if (live.attributes['appliedBy'] === command.commandId) return live;
  if (live.version !== ref.version) return stale();
  context.signal.throwIfAborted();
  const next = { ...change(live.attributes), appliedBy: command.commandId };
  const written = await objects.compareAndSet(ref, tenant, ref.version, next);
  return written === 'conflict' || written === 'not_found' ? stale() : written;
}

const isOutcome = (w: ResolvedObject | ToolOutcome): w is ToolOutcome => 'status' in w;

/** The string argument `name` of `command` ('' when absent). */
function text(command: Command, name: string): string {
  const value = command.args[name];
  return typeof value === 'string' ? value : '';
}

/** The five handlers, changing `objects`. */
export function createTestHandlers(objects: TestObjects): ToolHandlers {
  return {
    lookup: (command) =>
      Promise.resolve(toolOk({ lines: [`no entry for ${text(command, 'query')}`] })),
    echo: (command) => Promise.resolve(toolOk({ text: text(command, 'text') })),
    close_ticket: async (command, context) => {
      const resolution = text(command, 'resolution');
      const w = await write(objects, command, context, (a) => ({
        ...a,
        status: 'closed',
        resolution,
      }));
      return isOutcome(w) ? w : toolOk({ ticket: w.id, status: 'closed', version: w.version });
    },
    publish_note: async (command, context) => {
      const w = await write(objects, command, context, (a) => ({ ...a, published: true }));
      return isOutcome(w) ? w : toolOk({ note: w.id, published: true, version: w.version });
    },
    refund: async (command, context) => {
      const amount = Number(command.args['amount']);
      const w = await write(objects, command, context, (a) => ({
        ...a,
        refunded: Number(a['refunded']) + amount,
      }));
      return isOutcome(w) ? w : toolOk({ payment: w.id, refunded: w.attributes['refunded'] });
    },
  };
}
