/**
 * How the gate's messages become records: which topic, which key, which headers. One place, so
 * that every stage keys observations by run, audit events by tenant and commands by idempotency
 * key, and tags every internal envelope.
 */
import {
  deriveToolKey,
  INTEGRITY_HEADER,
  integrityTag,
  OBSERVATION_SIGNATURE_HEADER,
  PROOF_HEADER,
  SESSION_HEADER,
  toolProof,
  type AuditEvent,
  type Command,
  type Observation,
  type ObservationSigner,
} from '@toolgate/shared';
import { Fault } from './fault.js';
import type { GateTopics } from './gate-topics.js';
import type { EncodedOutgoing, RawOutgoing } from './stage-loop.js';

/** The internal topics, whose records carry an integrity tag. */
export type InternalTopic = 'validated' | 'authorized' | 'cleared';

/** Builders of the records a stage produces. */
export interface GateOutputs {
  readonly topics: GateTopics;
  /**
   * An observation for the agents of `tenant`, on that tenant's topic, keyed by run so one run's
   * observations stay in order, signed with the observation key. None when the tenant is not
   * known (undefined, or not one the deployment serves): there is no topic whose readers may
   * see it, and the audit event says what happened.
   */
  observation(observation: Observation, tenant: string | undefined): readonly EncodedOutgoing[];
  /** An audit event, keyed by tenant (`-` when the tenant is not known). */
  audit(event: AuditEvent): EncodedOutgoing;
  /**
   * An internal envelope, keyed by run, stamped `issuedAt` (inside the bytes the tag covers, so
   * a reader can refuse one that is too old) and tagged over its encoded bytes and topic.
   */
  envelope(topic: InternalTopic, runId: string, value: object, issuedAt: Date): EncodedOutgoing;
  /**
   * A command on its tool's topic, keyed by idempotency key, with the proof of that tool's key.
   * Throws a non-retriable Fault where no command key is configured (a stage other than execute).
   */
  command(command: Command): EncodedOutgoing;
  /** A confirmation request for approvers, keyed by tenant. */
  confirmationRequest(tenant: string, value: unknown): EncodedOutgoing;
  /**
   * Undecodable bytes, kept as they came with their headers, never executed; headers that carry a
   * credential ({@link CREDENTIAL_HEADERS}) are left out, and a record larger than a quarantine
   * record may be is kept cut (see {@link MAX_QUARANTINE_VALUE_BYTES}).
   */
  quarantine(raw: Buffer, headers: Readonly<Record<string, string>>): RawOutgoing;
}

/**
 * The most bytes of a quarantined value: 512 KiB. The broker takes records up to its
 * `message.max.bytes` (1 MiB by default), more than one produce request of the gate may carry
 * (1,000,000 bytes), so a record that came larger is kept as its first 512 KiB, with
 * {@link QUARANTINE_VALUE_BYTES_HEADER} giving its whole length; its audit event has the hash and
 * size of the whole.
 */
export const MAX_QUARANTINE_VALUE_BYTES = 512 * 1024;

/** The most bytes of the headers a quarantine record keeps (names and values): 64 KiB. */
export const MAX_QUARANTINE_HEADER_BYTES = 64 * 1024;

/** On a quarantine record whose value was cut: the length of the whole value, in bytes. */
export const QUARANTINE_VALUE_BYTES_HEADER = 'toolgate-quarantine-value-bytes';

/** On a quarantine record whose headers were over their bound: how many were left out. */
export const QUARANTINE_HEADERS_DROPPED_HEADER = 'toolgate-quarantine-headers-dropped';

/**
 * Headers that carry a credential, in lower case: never copied into a record the gate writes. The
 * session token is the caller's bearer credential, and quarantine keeps records for 30 days.
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([SESSION_HEADER]);

/**
 * `headers` without those in {@link CREDENTIAL_HEADERS}. Compared in lower case: the gate reads
 * only the exact name, but a client that sent it in other case sent the same token.
 */
function withoutCredentials(
  headers: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())),
  );
}

/** The keys a stage's outputs are tagged and signed with. */
export interface OutputKeys {
  /** TOOLGATE_INTEGRITY_KEY: tags internal envelopes. */
  readonly integrityKey: string;
  /** Signs observations (TOOLGATE_OBSERVATION_KEY). */
  readonly observationSigner: ObservationSigner;
  /** TOOLGATE_COMMAND_KEY, where execute runs: each tool's key is derived from it. */
  readonly commandKey?: string;
}

/** The output builders for one installation serving `tenants`. */
export function createGateOutputs(
  topics: GateTopics,
  keys: OutputKeys,
  tenants: ReadonlySet<string>,
): GateOutputs {
  const toolKeys = new Map<string, string>();
  const toolKey = (tool: string): string => {
    const known = toolKeys.get(tool);
    if (known !== undefined) return known;
    if (keys.commandKey === undefined) {
      throw new Fault(
        'command_key_missing',
        'only execute issues commands: TOOLGATE_COMMAND_KEY is not set here',
      );
    }
    const derived = deriveToolKey(keys.commandKey, tool);
    toolKeys.set(tool, derived);
    return derived;
  };
  return {
    topics,
    observation: (o, tenant) => {
      if (tenant === undefined || !tenants.has(tenant)) return [];
      const topic = topics.observationsOf(tenant);
      const sign = (bytes: Uint8Array) => ({
        [OBSERVATION_SIGNATURE_HEADER]: keys.observationSigner.sign(topic, bytes),
      });
      return [{ topic, key: o.runId, value: o, sign }];
    },
    audit: (e) => ({ topic: topics.audit, key: e.tenant ?? '-', value: e }),
    envelope: (name, runId, value, issuedAt) => {
      const topic = topics[name];
      return {
        topic,
        key: runId,
        value: { ...value, issuedAt: issuedAt.toISOString() },
        sign: (bytes) => ({ [INTEGRITY_HEADER]: integrityTag(keys.integrityKey, topic, bytes) }),
      };
    },
    command: (c) => {
      const topic = topics.command(c.tool);
      const key = toolKey(c.tool);
      return {
        topic,
        key: c.idempotencyKey,
        value: c,
        subject: `${topic}-value`,
        sign: (bytes) => ({ [PROOF_HEADER]: toolProof(key, topic, bytes) }),
      };
    },
    confirmationRequest: (tenant, value) => ({ topic: topics.confirmations, key: tenant, value }),
    quarantine: (raw, headers) => quarantineRecord(topics.quarantine, raw, headers),
  };
}

/** The quarantine record of `raw`: cut to its bound, headers kept within theirs, no credential. */
function quarantineRecord(
  topic: string,
  raw: Buffer,
  headers: Readonly<Record<string, string>>,
): RawOutgoing {
  const kept = keptHeaders(withoutCredentials(headers));
  if (raw.length <= MAX_QUARANTINE_VALUE_BYTES) return { topic, key: null, raw, headers: kept };
  return {
    topic,
    key: null,
    raw: raw.subarray(0, MAX_QUARANTINE_VALUE_BYTES),
    headers: { ...kept, [QUARANTINE_VALUE_BYTES_HEADER]: String(raw.length) },
  };
}

/** `headers`, or none and a count of them when together they are over their bound. */
function keptHeaders(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const entries = Object.entries(headers);
  const bytes = entries.reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value),
    0,
  );
  if (bytes <= MAX_QUARANTINE_HEADER_BYTES) return headers;
  return { [QUARANTINE_HEADERS_DROPPED_HEADER]: String(entries.length) };
}
