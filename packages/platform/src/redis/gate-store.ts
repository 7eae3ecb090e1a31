/**
 * The parts of the store the gate's stages use, made on one connection for whoever wires the
 * stages (the gate runtime, tests). Each stage is then handed only the parts it uses.
 */
import { createCallCounters, type CallCounters } from './call-counters.js';
import {
  createConfirmations,
  type Confirmations,
  type ConfirmationsOptions,
} from './confirmations.js';
import { createIdempotencyRecords, type IdempotencyRecords } from './idempotency-records.js';
import {
  createPendingCommands,
  type PendingCommands,
  type PendingCommandsOptions,
} from './pending-commands.js';
import type { RedisConnection } from './redis-connection.js';

/** The gate's stores, by concern. */
export interface GateStore {
  /** Idempotency records: authorize reads them, execute claims and settles them. */
  readonly idempotency: IdempotencyRecords;
  /** Commands waiting for their results: execute's. */
  readonly pendingCommands: PendingCommands;
  /** Confirmations waiting for a person: confirm's. */
  readonly confirmations: Confirmations;
  /** Calls per run, per user- and tenant-second, and repairs per call chain: validate's. */
  readonly counters: CallCounters;
}

/** Options of {@link createGateStore}. */
export type GateStoreOptions = PendingCommandsOptions & ConfirmationsOptions;

/** The gate's stores on `conn`. */
export function createGateStore(conn: RedisConnection, options: GateStoreOptions = {}): GateStore {
  return {
    idempotency: createIdempotencyRecords(conn),
    pendingCommands: createPendingCommands(conn, options),
    confirmations: createConfirmations(conn, options),
    counters: createCallCounters(conn),
  };
}
