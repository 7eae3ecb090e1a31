/** How the benchmark tells a child process of its own what to be: JSON in BENCH_CHILD. */
import { writeFileSync } from 'node:fs';
import { EXAMPLE_TOOLS } from '@toolgate/platform';

/** The relay's roles: four hops that do no work, and the hop that turns results into observations. */
export const RELAY_ROLES = ['hop1', 'hop2', 'hop3', 'hop4', 'obs'] as const;

/**
 * The tool whose topic a relay command goes to: the one the call names, else the first. The relay
 * has the gate's own tools (`EXAMPLE_TOOLS`), so hop4 writes each command to the topic the gate's
 * execute would (one per tool, DESIGN §2), over the same partitions.
 */
export function relayToolOf(named: string): string {
  const tools: readonly string[] = EXAMPLE_TOOLS;
  return tools.includes(named) ? named : (tools[0] ?? named);
}

/**
 * The idempotency key of a relay command: its tenant, a slash, its id. The relay keeps no state,
 * and a ToolResult names no tenant, so the observation hop reads the tenant's topic from it
 * ({@link relayTenantOf}) where the gate's execute looks the call up in Redis.
 */
export function relayIdempotencyKey(tenant: string, id: string): string {
  return `${tenant}/${id}`;
}

/** The tenant a relay idempotency key names (see {@link relayIdempotencyKey}). */
export function relayTenantOf(idempotencyKey: string): string {
  const end = idempotencyKey.indexOf('/');
  if (end <= 0) throw new TypeError(`relay idempotency key ${idempotencyKey} names no tenant`);
  return idempotencyKey.slice(0, end);
}

/** One relay role. */
export type RelayRole = (typeof RELAY_ROLES)[number];

/** What a relay hop or a no-op worker is told. */
export interface ChildConfig {
  /** A relay hop's role; absent for a worker. */
  readonly role?: RelayRole;
  /** A worker's tools; absent for a relay hop. */
  readonly tools?: readonly string[];
  /** Written (empty) once the child's consumer has joined its group. */
  readonly readyFile: string;
}

/** The variable that carries it. */
export const CHILD_VARIABLE = 'BENCH_CHILD';

/** Reads and checks BENCH_CHILD; throws naming what is wrong. */
export function readChildConfig(env: Readonly<Record<string, string | undefined>>): ChildConfig {
  const text = env[CHILD_VARIABLE];
  if (text === undefined) throw new TypeError(`${CHILD_VARIABLE} is not set`);
  const parsed = JSON.parse(text) as Partial<ChildConfig>;
  if (typeof parsed.readyFile !== 'string')
    throw new TypeError(`${CHILD_VARIABLE}.readyFile must be a path`);
  if (parsed.role !== undefined && !RELAY_ROLES.includes(parsed.role))
    throw new TypeError(`${CHILD_VARIABLE}.role must be one of ${RELAY_ROLES.join(', ')}`);
  return parsed as ChildConfig;
}

/** Polls `ready` every 100 ms and writes the ready file once it answers true. */
export function announceReady(config: ChildConfig, ready: () => boolean): void {
  const timer = setInterval(() => {
    if (!ready()) return;
    writeFileSync(config.readyFile, '');
    clearInterval(timer);
  }, 100);
}

/** Ends the process on SIGTERM/SIGINT after `stop` (exit 0, so `--cpu-prof` writes its profile). */
export function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    const hard = setTimeout(() => process.exit(1), 10_000);
    hard.unref();
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/**
 * Ends the process with 1, saying why in its log, when its loop stopped on its own (a fenced
 * producer, a consumer kafkajs will not restart): the benchmark then stops and names this child,
 * where a process left up and consuming nothing would have every later proposal counted lost.
 */
export function exitOnCrash(error: Error): void {
  process.stderr.write(`stopped on its own: ${error.stack ?? error.message}\n`);
  process.exit(1);
}
