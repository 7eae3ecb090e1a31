/**
 * The registry codec, the one module that imports the schema registry's client (lint:
 * scripts/lint/boundaries.js). It registers each message type's JSON Schema under `<topic>-value`,
 * encodes what the gate writes in the Confluent wire format (after validating it against that
 * schema), and decodes what arrives: the wire format, or plain JSON where a topic allows it,
 * always with the core's bounded parser so duplicate keys, forbidden keys and lone surrogates are
 * refused the same way everywhere.
 *
 * Decoding does not validate against the schema: for the topics others write (proposals,
 * approvals, results) the gate's own rungs refuse a malformed message with an answer the sender
 * can read, which a schema failure here would turn into undecodable bytes; internal topics carry
 * an integrity tag that the handlers check. So the registry client never compiles a schema: the
 * codec compiles what it registers with the gate's validator (Ajv 2020, strict, formats asserted).
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { createValidator, parseJsonBounded, type ParseLimits } from '@toolgate/shared';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { AdapterLogger } from './adapter-logger.js';
import { classifyBytes, toWireFormat } from './classify-bytes.js';
import { Fault, type FaultCode } from './fault.js';

/** Fault codes the codec throws. */
export const CODEC_FAULTS = {
  /** The registry could not be reached, timed out or answered "try later" (retriable). */
  unavailable: 'registry_unavailable',
  /** A value the gate was about to write breaks its schema or would not decode: a gate bug. */
  invalidMessage: 'invalid_message',
  /** The schema is not strict-valid, or the registry refused it (e.g. incompatible). */
  schemaRejected: 'schema_rejected',
  /** `encode` for a subject this codec has not registered: a wiring bug. */
  unregisteredSubject: 'unregistered_subject',
  /**
   * `adopt` found no such schema under the subject: the gate registers its schemas when it starts,
   * and has not (retriable: a client started before the gate waits for it).
   */
  schemaNotRegistered: 'schema_not_registered',
} as const satisfies Record<string, FaultCode>;

/** Ceilings for a whole message (envelope): 1 MiB of UTF-8, 64 levels deep. */
export const ENVELOPE_LIMITS: ParseLimits = Object.freeze({ maxBytes: 1024 * 1024, maxDepth: 64 });

/** Schema compatibility levels the registry enforces per subject. */
export const COMPATIBILITY_LEVELS = [
  'NONE',
  'BACKWARD',
  'BACKWARD_TRANSITIVE',
  'FORWARD',
  'FORWARD_TRANSITIVE',
  'FULL',
  'FULL_TRANSITIVE',
] as const;

/** One compatibility level. */
export type Compatibility = (typeof COMPATIBILITY_LEVELS)[number];

/** A JSON Schema, as plain data. */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/** Options of {@link createCodec}. */
export interface CodecOptions {
  /** The registry's Confluent API base URL, e.g. `http://127.0.0.1:8081/apis/ccompat/v7`. */
  readonly registryUrl: string;
  readonly logger: AdapterLogger;
  /**
   * Compatibility set on a subject when the codec first registers it. Default `BACKWARD`. Note:
   * Apicurio 3.3 cannot check draft 2020-12 schemas for compatibility; it answers 500
   * "could not determine version" to any changed schema under a checked subject.
   */
  readonly compatibility?: Compatibility;
  /** Bound on each registry call, in ms. Default 5000. */
  readonly timeoutMs?: number;
  /** Ceilings for decoding and encoding one message. Default {@link ENVELOPE_LIMITS}. */
  readonly limits?: ParseLimits;
}

/** What a record decoded to: a value (with the schema id, or null for plain JSON) or why not. */
export type Decoded =
  { readonly value: unknown; readonly schemaId: number | null } | { readonly error: string };

/** Encoding and decoding of the gate's messages. */
export interface Codec {
  /**
   * Registers `schema` under `subject` (idempotent; cached per subject and schema) and returns
   * its id. Throws `schema_rejected` for a schema that is not strict-valid or that the registry
   * refuses, `registry_unavailable` (retriable) when the registry cannot be reached.
   */
  register(subject: string, schema: JsonSchemaObject): Promise<number>;
  /**
   * Encodes for `subject` under the id the registry already holds for exactly `schema`, without
   * registering or changing anything: what clients outside the gate (agents, tool workers) do,
   * since only the gate registers schemas. Returns the id. Throws `schema_not_registered`
   * (retriable) when the registry holds no such schema under the subject, `registry_unavailable`
   * (retriable) when it cannot be reached.
   */
  adopt(subject: string, schema: JsonSchemaObject): Promise<number>;
  /**
   * `value` in the wire format under the schema registered last for `subject`. Throws
   * `invalid_message` when the value breaks the schema or would not decode within the limits
   * (a gate bug, not retriable), `unregistered_subject` when nothing was registered for it.
   */
  encode(subject: string, value: unknown): Promise<Buffer>;
  /**
   * Decodes a record value. Never throws for bad bytes (they come back as `{error}` starting
   * `undecodable:`); throws `registry_unavailable` (retriable) when a wire-format record's
   * schema id cannot be looked up.
   */
  decode(bytes: Buffer | null, options: { readonly plainJsonAllowed: boolean }): Promise<Decoded>;
}

// The registry client compiles every schema it sees; the codec validates with its own compiled
// validators and never asks the client to encode or decode, so its compiler is a stub.
const NOT_COMPILED = {
  addSchema: () => {
    throw new Error('the codec does not register schema references');
  },
  compile: () => () => true,
};

// mappersmith reports a connection failure as status 400; 408, 429 and 5xx gateways are transient.
const TRANSIENT_STATUS: ReadonlySet<number> = new Set([400, 408, 429, 502, 503, 504]);
const MAX_UNKNOWN_IDS = 1_000;
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * True for the registry client's refusal to load a schema the registry returned: its
 * `ConfluentSchemaRegistryArgumentError` (not exported by the package), which carries no status.
 */
function isUnloadableSchema(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConfluentSchemaRegistryArgumentError';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function unavailable(action: string, error: unknown): Fault {
  return new Fault(
    CODEC_FAULTS.unavailable,
    `schema registry unavailable; could not ${action}: ${messageOf(error)}`,
    { cause: error },
  );
}

/** Races `work` against `ms`; a timeout is a retriable `registry_unavailable`. */
async function bounded<T>(ms: number, action: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(unavailable(action, new Error(`no answer within ${ms} ms`))),
      ms,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describeProblem(e: ErrorObject): string {
  const where = e.instancePath === '' ? '/' : e.instancePath;
  const params = e.params as { missingProperty?: unknown; additionalProperty?: unknown };
  const which = params.missingProperty ?? params.additionalProperty;
  return `${where}: ${e.keyword}${typeof which === 'string' ? ` ${which}` : ''}`;
}

function compileStrict(subject: string, schema: JsonSchemaObject): ValidateFunction {
  try {
    return createValidator().compile(schema);
  } catch (error) {
    throw new Fault(
      CODEC_FAULTS.schemaRejected,
      `schema for ${subject} is not a strict draft 2020-12 schema: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

function invalidMessage(subject: string, detail: string): Fault {
  return new Fault(CODEC_FAULTS.invalidMessage, `refusing to write a bad ${subject}: ${detail}`);
}

/** Parses `bytes` as one JSON text with the core's bounded parser. */
function parseBounded(bytes: Buffer, schemaId: number | null, limits: ParseLimits): Decoded {
  if (bytes.length > limits.maxBytes) {
    return { error: `undecodable: ${bytes.length} bytes exceed ${limits.maxBytes}` };
  }
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    return { error: 'undecodable: not UTF-8' };
  }
  const parsed = parseJsonBounded(text, limits);
  if (!parsed.ok) return { error: `undecodable: ${parsed.code}: ${parsed.internalDetail}` };
  return { value: parsed.value, schemaId };
}

interface Registered {
  readonly id: number;
  readonly validate: ValidateFunction;
}

/** A codec for one registry; connects nothing until first used. */
export function createCodec(options: CodecOptions): Codec {
  const registry = new SchemaRegistry(
    {
      host: options.registryUrl,
      clientId: 'toolgate',
      retry: { retries: 2, initialRetryTimeInSecs: 0.1, maxRetryTimeInSecs: 1 },
    },
    { [SchemaType.JSON]: { ajvInstance: NOT_COMPILED as never } },
  );
  const timeoutMs = options.timeoutMs ?? 5_000;
  const limits = options.limits ?? ENVELOPE_LIMITS;
  const compatibility = COMPATIBILITY[options.compatibility ?? 'BACKWARD'];
  const registrations = new Map<string, Promise<number>>();
  const bySubject = new Map<string, Registered>();
  const knownIds = new Map<number, Promise<boolean>>();
  const unknownIds = new Set<number>();

  async function registerRemote(subject: string, text: string): Promise<number> {
    try {
      const call = registry.register(
        { type: SchemaType.JSON, schema: text },
        { subject, compatibility },
      );
      const { id } = await bounded(timeoutMs, `register ${subject}`, call);
      options.logger.info({ subject, schemaId: id }, 'schema registered');
      return id;
    } catch (error) {
      if (error instanceof Fault) throw error;
      const status = statusOf(error);
      if (status !== undefined && TRANSIENT_STATUS.has(status))
        throw unavailable(`register ${subject}`, error);
      // Two processes registering a new subject at once both set its compatibility rule, and
      // the registry refuses the second; registering again finds the subject set as asked.
      if (/rule named '?COMPATIBILITY'? already exists/i.test(messageOf(error))) {
        throw unavailable(`register ${subject} (another process set it up meanwhile)`, error);
      }
      throw new Fault(
        CODEC_FAULTS.schemaRejected,
        `registry refused the schema for ${subject}: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }

  async function lookUp(id: number): Promise<boolean> {
    try {
      await bounded(timeoutMs, `look up schema ${id}`, registry.getSchema(id));
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      // The registry answered with the schema, and the client could not load it (references, a
      // type it does not know): the id exists, which is all a decode asks. As an outage, it held
      // the record's partition for good, and anyone can name any id in a wire-format header.
      if (isUnloadableSchema(error)) return true;
      throw error instanceof Fault ? error : unavailable(`look up schema ${id}`, error);
    }
  }

  /** Whether the registry knows `id`; answers are cached, "unknown" ones in a bounded set. */
  async function isKnown(id: number): Promise<boolean> {
    if (unknownIds.has(id)) return false;
    let known = knownIds.get(id);
    if (known === undefined) {
      known = lookUp(id);
      knownIds.set(id, known);
    }
    try {
      if (await known) return true;
    } catch (error) {
      knownIds.delete(id);
      throw error;
    }
    knownIds.delete(id);
    if (unknownIds.size >= MAX_UNKNOWN_IDS) unknownIds.clear();
    unknownIds.add(id);
    return false;
  }

  return {
    async register(subject, schema) {
      const validate = compileStrict(subject, schema);
      const text = JSON.stringify(schema);
      const key = `${subject}\u0000${text}`;
      let pending = registrations.get(key);
      if (pending === undefined) {
        pending = registerRemote(subject, text);
        registrations.set(key, pending);
        pending.catch(() => registrations.delete(key));
      }
      const id = await pending;
      knownIds.set(id, Promise.resolve(true));
      bySubject.set(subject, { id, validate });
      return id;
    },

    async adopt(subject, schema) {
      const validate = compileStrict(subject, schema);
      const text = JSON.stringify(schema);
      let id: number;
      try {
        const call = registry.getRegistryIdBySchema(subject, {
          type: SchemaType.JSON,
          schema: text,
        });
        id = await bounded(timeoutMs, `look up ${subject}`, call);
      } catch (error) {
        if (error instanceof Fault) throw error;
        const status = statusOf(error);
        if (
          status === 404 ||
          (error instanceof Error && /not (found|registered)/i.test(error.message))
        ) {
          throw new Fault(
            CODEC_FAULTS.schemaNotRegistered,
            `the registry holds no such schema under ${subject}: the gate registers it when it starts`,
            { cause: error },
          );
        }
        throw unavailable(`look up ${subject}`, error);
      }
      knownIds.set(id, Promise.resolve(true));
      bySubject.set(subject, { id, validate });
      return id;
    },

    encode(subject, value) {
      const registered = bySubject.get(subject);
      if (registered === undefined) {
        const message = `no schema registered for ${subject} by this process`;
        return Promise.reject(new Fault(CODEC_FAULTS.unregisteredSubject, message));
      }
      if (!registered.validate(value)) {
        const problems = (registered.validate.errors ?? []).map(describeProblem).join('; ');
        return Promise.reject(invalidMessage(subject, problems));
      }
      const text = JSON.stringify(value);
      // What the gate writes, the gate must be able to read: JSON.stringify would escape a lone
      // surrogate or keep a `__proto__` key that the bounded parser refuses on the other side.
      const readBack = parseJsonBounded(text, limits);
      if (!readBack.ok) {
        return Promise.reject(invalidMessage(subject, `would not decode: ${readBack.code}`));
      }
      return Promise.resolve(toWireFormat(registered.id, Buffer.from(text, 'utf8')));
    },

    async decode(bytes, { plainJsonAllowed }) {
      const shape = classifyBytes(bytes);
      switch (shape.kind) {
        case 'other':
          return { error: `undecodable: ${shape.reason}` };
        case 'json':
          return plainJsonAllowed
            ? parseBounded(shape.text, null, limits)
            : { error: 'undecodable: plain JSON is not accepted on this topic' };
        case 'wire':
          return (await isKnown(shape.schemaId))
            ? parseBounded(shape.payload, shape.schemaId, limits)
            : { error: `undecodable: schema id ${shape.schemaId} is not in the registry` };
      }
    },
  };
}
