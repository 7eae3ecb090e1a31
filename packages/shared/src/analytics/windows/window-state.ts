/**
 * The analytics service's changelog record: the open windows of one audit partition and the offset
 * after the last record they count, written in the same transaction as that offset, so that a
 * restart or a rebalance rebuilds exactly the state the committed offset stands for.
 */
import { closed, count } from '../../messages/schema-parts.js';
import type { MessageSchema } from '../../messages/schema-parts.js';
import type { PartitionWindowsSnapshot } from './partition-windows.js';

/** One value of the window-state topic (key: the audit partition, as decimal text). */
export interface WindowStateRecord {
  /** The audit topic partition. */
  readonly partition: number;
  /** Offset of the next audit record to read, as a decimal string. */
  readonly nextOffset: string;
  readonly windows: PartitionWindowsSnapshot;
}

/**
 * The JSON Schema of window-state values. The snapshot is described by its top-level shape only: it is
 * written and read by the analytics service alone, which checks what it restores.
 */
export const windowStateSchema: MessageSchema = closed(
  'AnalyticsWindowState',
  {
    partition: count,
    nextOffset: { type: 'string', pattern: '^[0-9]+$' },
    windows: {
      type: 'object',
      required: ['watermarkMs', 'closedThroughMs', 'lastArrivalMs', 'open'],
      properties: {
        watermarkMs: { type: ['integer', 'null'] },
        closedThroughMs: { type: 'object' },
        lastArrivalMs: { type: ['integer', 'null'] },
        open: { type: 'array', items: { type: 'object' } },
      },
    },
  },
  ['partition', 'nextOffset', 'windows'],
);

/** Whether a decoded value is a window-state record of `partition`. */
export function isWindowStateOf(value: unknown, partition: number): value is WindowStateRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<WindowStateRecord>;
  return (
    v.partition === partition &&
    typeof v.nextOffset === 'string' &&
    /^[0-9]+$/.test(v.nextOffset) &&
    typeof v.windows === 'object' &&
    v.windows !== null &&
    Array.isArray(v.windows.open)
  );
}
