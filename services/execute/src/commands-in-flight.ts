/**
 * The pending commands this instance stored with their claims and whose results have not come
 * back yet, in memory. A result whose command is here is checked against this copy, and the
 * command is taken and its record settled in one Redis round trip instead of two; the store does
 * that only while Redis holds exactly this copy. A result whose command is not here (another
 * instance issued it, this one restarted, or the entry was dropped) is handled in two steps, as
 * before: this is a shortcut, never the only way.
 */
import type { PendingCommand } from '@toolgate/platform';

/** Most pending commands kept by default: past it, the oldest is dropped first. */
export const COMMANDS_IN_FLIGHT_KEPT = 10_000;

/** A bounded map from command id to the pending command as stored. */
export class CommandsInFlight {
  private readonly byId = new Map<string, PendingCommand>();

  constructor(private readonly most = COMMANDS_IN_FLIGHT_KEPT) {}

  /** Keeps `pending`, dropping the oldest entry when full. */
  remember(pending: PendingCommand): void {
    this.byId.delete(pending.commandId);
    this.byId.set(pending.commandId, pending);
    if (this.byId.size > this.most) {
      const oldest = this.byId.keys().next();
      if (oldest.done !== true) this.byId.delete(oldest.value);
    }
  }

  /** The pending command stored under `commandId`, when this instance kept it; it stays. */
  peek(commandId: string): PendingCommand | undefined {
    return this.byId.get(commandId);
  }

  /** The pending command stored under `commandId`, when this instance kept it; it is dropped. */
  take(commandId: string): PendingCommand | undefined {
    const pending = this.byId.get(commandId);
    this.byId.delete(commandId);
    return pending;
  }

  /** Drops the entry: its command ended without a result. */
  forget(commandId: string): void {
    this.byId.delete(commandId);
  }

  /** How many are kept. */
  get size(): number {
    return this.byId.size;
  }
}
