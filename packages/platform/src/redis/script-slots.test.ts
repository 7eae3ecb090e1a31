import { readdirSync, readFileSync } from 'node:fs';
import { tenantHashTag, type PendingConfirmation } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { createGateStore } from './gate-store.js';
import { createLedger } from './ledger.js';
import type { StoreScript } from './load-script.js';
import type { RedisClient } from './redis-client.js';
import type { RedisConnection } from './redis-connection.js';
import { createRedisObjectStore } from './redis-object-store.js';
import { storeKeys } from './store-keys.js';

/** The scripts one server runs whose keys span slots: on a cluster they run one slot at a time. */
const SINGLE_SERVER_ONLY = ['claim_with_pending', 'take_and_settle'];

const SCRIPTS_DIR = new URL('./scripts/', import.meta.url);

/** Every script file's name as the store runs it, and the number of KEYS its header declares. */
const declared = new Map(
  readdirSync(SCRIPTS_DIR)
    .filter((f) => f.endsWith('.lua'))
    .map((f) => {
      const lua = readFileSync(new URL(f, SCRIPTS_DIR), 'utf8');
      const keys = new Set(lua.match(/^\s*KEYS\[\d+\]/gm)?.map((k) => k.trim()));
      return [f.replace(/\.lua$/, '').replaceAll('-', '_'), keys.size] as const;
    }),
);

/** The hash tag Redis Cluster hashes: the text between the first `{` and the next `}`. */
const slotTag = (key: string) => /\{(.*?)\}/.exec(key)?.[1];

interface Call {
  readonly script: string;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

/** Replies that let each operation go on to its next script. */
function replyTo(script: string, args: readonly (string | number)[]): unknown {
  switch (script) {
    case 'claim_record':
    case 'claim_with_pending':
    case 'settle_record':
      return [1];
    case 'take_pending_command':
      return args[3] ?? null;
    case 'park_confirmation':
      return ['publish', args[0]];
    default:
      return null;
  }
}

/** A connection that records every script call instead of running it. */
function recording(cluster: boolean): { conn: RedisConnection; calls: Call[] } {
  const calls: Call[] = [];
  const client = new Proxy(
    {},
    {
      get: (_, command) => () =>
        Promise.resolve(command === 'smembers' ? [tenantHashTag('acme')] : null),
    },
  ) as RedisClient;
  const conn: RedisConnection = {
    keys: storeKeys('tg:', { cluster }),
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
    run: (_op, fn) => fn(client),
    script: (s: StoreScript, keys, args) => {
      calls.push({ script: s.name, keys, args });
      return Promise.resolve(replyTo(s.name, args));
    },
  };
  return { conn, calls };
}

const confirmation: PendingConfirmation = {
  confirmationId: 'c-1',
  proposalId: 'p-1',
  runId: 'run-1',
  requestId: 'req-1',
  callId: 'call-1',
  tenant: 'acme',
  requestedBy: 'alice',
  requesterRoles: ['approver'],
  tool: 'delete_invoice',
  toolVersion: '1',
  attempt: 0,
  receivedAt: '2027-01-15T08:00:00.000Z',
  args: {},
  objects: [],
  card: { action: 'Delete', target: 'inv-1', effect: 'gone', preview: {} },
  digest: 'd',
  policyVersion: 'pv',
  expiresAt: '2027-01-15T08:30:00.000Z',
};

const pending = {
  commandId: 'cmd-1',
  idempotencyKey: 'key-1',
  tenant: 'acme',
  subject: 'alice',
  tool: 'refund',
  proposalId: 'p-1',
  runId: 'run-1',
  requestId: 'req-1',
  callId: 'call-1',
  token: 'p-1',
  digest: 'd',
  deadline: '2027-01-15T08:30:00.000Z',
};

/** Runs every operation of every store on `conn`; a reply a fake cannot make is ignored. */
async function everyOperation(conn: RedisConnection): Promise<void> {
  const store = createGateStore(conn);
  const ledger = createLedger(conn);
  const objects = createRedisObjectStore(conn, 'billing');
  const record = { state: 'claimed' as const, token: 'p-1', digest: 'd' };
  const ttl = 24 * 60 * 60;
  const ref = { type: 'invoice', id: 'inv-1' };
  const claimant = { token: 'cmd-1', digest: 'd', tool: 'refund', claimedAt: 'now' };
  const result = { ...pending, status: 'ok' as const, completedAt: 'now' };
  const view = { ...confirmation, outcome: 'approved' as const, decidedAt: pending.deadline };
  const operations: (() => Promise<unknown>)[] = [
    () => store.idempotency.settleRecord('acme', 'k', record, ttl, 's'),
    () =>
      store.pendingCommands.claimWithPending({
        tenant: 'acme',
        key: 'key-1',
        record,
        ttlSeconds: ttl,
        pending,
        deadlineMs: 1,
      }),
    () => store.pendingCommands.putPendingCommand(pending, 1),
    () => store.pendingCommands.takePendingCommand('cmd-1', 't'),
    () =>
      store.pendingCommands.takeAndSettle({
        expected: pending,
        takerToken: 't',
        record,
        ttlSeconds: ttl,
        settlerToken: 't',
      }),
    () => store.pendingCommands.claimExpiredCommands(1, 1, 10),
    () => store.pendingCommands.finishExpiredCommand('cmd-1'),
    () => store.confirmations.parkConfirmation(confirmation, 1, 'p'),
    () => store.confirmations.takeConfirmation('acme', 'c-1', 't'),
    () => store.confirmations.listPending('acme', { expiredUpToMs: 0, size: 10 }),
    () => store.confirmations.claimExpiredConfirmations(1, 1, 10),
    () => store.confirmations.finishExpiredConfirmation('acme', 'c-1'),
    () => store.confirmations.recordDecided(view),
    () => store.confirmations.listDecided('acme', { size: 10 }),
    () =>
      store.counters.countProposal({
        tenant: 'acme',
        subject: 'alice',
        runId: 'run-1',
        token: 't',
        second: 1,
        chain: 'refund',
        step: 'charge',
        keep: 10,
      }),
    () => ledger.ledgerClaim('acme', 'k', claimant, ttl),
    () => ledger.ledgerPut('acme', 'k', claimant, result, ttl),
    () => ledger.ledgerRenew('acme', 'k', claimant, 15_000),
    () => ledger.ledgerRelease('acme', 'k', claimant),
    () => objects.seed([{ ...ref, tenant: 'acme', version: 1, attributes: {} }]),
    () => objects.compareAndSet(ref, 'acme', 1, {}),
  ];
  for (const operation of operations) await operation().catch(() => undefined);
}

describe('the store scripts on a Redis Cluster', () => {
  it('puts every key of a script call, and every key prefix it builds keys from, in one slot', async () => {
    const { conn, calls } = recording(true);
    await everyOperation(conn);
    const spanning = calls.filter(({ keys, args }) => {
      const prefixes = args.filter(
        (a): a is string => typeof a === 'string' && a.startsWith('tg:'),
      );
      const tags = new Set([...keys, ...prefixes.filter((p) => p.includes('{'))].map(slotTag));
      return tags.size !== 1 || tags.has(undefined);
    });
    expect(spanning).toEqual([]);
  });

  it('runs every script but the single-server ones, each with the keys its header declares', async () => {
    const { conn, calls } = recording(true);
    await everyOperation(conn);
    const run = new Set(calls.map((c) => c.script));
    const expected = [...declared.keys()].filter((s) => !SINGLE_SERVER_ONLY.includes(s));
    expect([...run].sort()).toEqual(expected.sort());
    for (const call of calls)
      expect([call.script, call.keys.length]).toEqual([call.script, declared.get(call.script)]);
  });

  it('runs the single-server scripts on one server only, with the keys they declare', async () => {
    const { conn, calls } = recording(false);
    await everyOperation(conn);
    const run = calls.filter((c) => SINGLE_SERVER_ONLY.includes(c.script));
    expect(new Set(run.map((c) => c.script))).toEqual(new Set(SINGLE_SERVER_ONLY));
    for (const call of run) expect(call.keys).toHaveLength(declared.get(call.script) ?? -1);
  });
});
