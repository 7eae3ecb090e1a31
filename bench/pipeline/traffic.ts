/**
 * What the driver sends to each system. The gate gets the core benchmark's mix (bench/core),
 * with its ids made unique per repetition and pass so that no write is answered as a replay of an
 * earlier repetition; the relay gets the same proposals carrying a ready-made Command for hop4;
 * the one-hop baseline sends an observation straight to the topic the driver reads. Pure.
 */
import { SESSION_HEADER, type Proposal } from '@toolgate/shared';
import type { OutRecord } from '@toolgate/platform';
import type { Expected, MixEntry, UserName } from '../core/build-mix.js';
import { relayIdempotencyKey, relayToolOf } from './child-config.js';
import type { SystemName } from './summarize.js';

/** One record to send and what to expect back. */
export interface Outbound {
  /** The proposalId the terminal observation will carry. */
  readonly id: string;
  readonly record: OutRecord;
  /** What the gate must answer (gate only). */
  readonly expected?: Expected;
  /** The mix label (gate only), for reporting mismatches. */
  readonly label?: string;
}

/** Everything the records are built from. */
export interface TrafficFacts {
  readonly mix: readonly MixEntry[];
  readonly tokens: Readonly<Record<UserName, string>>;
  /** The topic each system's proposals go to. */
  readonly inputTopic: Readonly<Record<SystemName, string>>;
}

/** The `n`-th proposal of repetition `tag` (letters, digits, `-`) for `system`. */
export function outbound(
  facts: TrafficFacts,
  system: SystemName,
  tag: string,
  n: number,
  now: Date,
): Outbound {
  const entry = facts.mix[n % facts.mix.length];
  if (entry === undefined) throw new RangeError('the mix is empty');
  const pass = Math.floor(n / facts.mix.length);
  const id = `${system[0]}.${tag}.${n}`;
  const proposal = renamed(entry.proposal, id, `${tag}.${pass}`);
  const headers = { [SESSION_HEADER]: facts.tokens[entry.user] };
  const topic = facts.inputTopic[system];
  switch (system) {
    case 'gate':
      return {
        id,
        record: { topic, key: proposal.runId, value: json(proposal), headers },
        expected: entry.expected,
        label: entry.label,
      };
    case 'relay': {
      const command = echoCommand(id, proposal, entry, now);
      return {
        id,
        record: { topic, key: proposal.runId, value: json({ ...proposal, command }), headers },
      };
    }
    case 'onehop':
      return {
        id,
        record: {
          topic,
          key: proposal.runId,
          value: json({
            proposalId: id,
            runId: proposal.runId,
            requestId: proposal.requestId,
            outcome: 'result',
          }),
          headers,
        },
      };
  }
}

/** The proposal under new ids: its own id, and run and request ids scoped to `scope`. */
export function renamed(p: Proposal, proposalId: string, scope: string): Proposal {
  return { ...p, proposalId, runId: `${scope}.${p.runId}`, requestId: `${scope}.${p.requestId}` };
}

/** The example's tenant of a user: carol works at globex, alice and bob at acme. */
export function tenantOf(user: UserName): string {
  return user === 'carol' ? 'globex' : 'acme';
}

/**
 * The Command hop4 forwards: to the topic of the tool the call names, as the gate's execute writes
 * it, so the relay's commands spread over the same topics and partitions as the gate's. A call
 * naming no tool of the deployment (refused by the gate) goes to the first one. Its idempotency key
 * carries the tenant, whose observations topic the relay's observation hop writes to.
 */
function echoCommand(id: string, p: Proposal, entry: MixEntry, now: Date) {
  const user = entry.user;
  const tenant = tenantOf(user);
  return {
    commandId: id,
    idempotencyKey: relayIdempotencyKey(tenant, id),
    tool: relayToolOf(entry.tool),
    toolVersion: '1',
    args: {},
    context: {
      subject: user,
      tenant,
      requestId: p.requestId,
      runId: p.runId,
      proposalId: id,
      callId: id,
    },
    objects: [],
    deadline: new Date(now.getTime() + 120_000).toISOString(),
    issuedAt: now.toISOString(),
  };
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/**
 * Does the call go straight through, with no person to approve it? Every relay and one-hop
 * message does; a gate call the mix sends for confirmation waits for the scripted approver.
 */
export function unattended(out: Outbound): boolean {
  return out.expected?.kind !== 'confirm';
}

/** Does a terminal observation answer what the mix entry expects? */
export function answers(
  expected: Expected,
  label: string | undefined,
  o: Readonly<Record<string, unknown>>,
): boolean {
  switch (expected.kind) {
    case 'execute':
      // A client retry that arrives while the first call still runs is refused as in flight.
      if (label === 'write_retry' && o['code'] === 'in_flight') return true;
      return o['outcome'] === 'result';
    case 'confirm':
      return o['outcome'] === 'result';
    case 'refused':
      return (
        o['outcome'] === 'rejected' && o['stage'] === expected.stage && o['code'] === expected.code
      );
  }
}

/** A terminal observation in a word or two: `result`, or `rejected <stage>/<code>`. */
export function outcomeOf(o: Readonly<Record<string, unknown>>): string {
  const word = (k: string) => (typeof o[k] === 'string' ? o[k] : '?');
  return o['outcome'] === 'rejected'
    ? `rejected ${word('stage')}/${word('code')}`
    : word('outcome');
}

/** Decodes a record's value: the registry wire format (magic byte 0, 4-byte id) or plain JSON. */
export function decodeValue(bytes: Buffer | null): Record<string, unknown> | undefined {
  if (bytes === null || bytes.length === 0) return undefined;
  try {
    const body = bytes[0] === 0 ? bytes.subarray(5) : bytes;
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
