import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CODEC_FAULTS, createCodec, Fault, toWireFormat, type Codec } from '@toolgate/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNamespace } from '../support/namespace.js';
import { recordingLogger } from '../support/recording-logger.js';
import { dropSubjects } from '../support/registry-cleanup.js';
import { stackAddresses } from '../support/stack.js';

const ns = testNamespace('codec');
const url = stackAddresses().schemaRegistryUrl;
const subject = `${ns.topic('observations')}-value`;

// Shaped like the messages helper's schemas: draft 2020-12, closed, formats asserted.
const observationSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Observation',
  type: 'object',
  additionalProperties: false,
  required: ['proposalId', 'outcome', 'at'],
  properties: {
    proposalId: { type: 'string', minLength: 1 },
    outcome: { enum: ['result', 'rejected', 'pending_confirmation', 'expired', 'unknown_outcome'] },
    message: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
  },
} as const;

const observation = {
  proposalId: 'p-81f2',
  outcome: 'rejected',
  message: 'Unknown tool.',
  at: '2026-11-29T20:00:00.000Z',
};

const newCodec = (registryUrl = url, timeoutMs?: number): Codec =>
  createCodec({
    registryUrl,
    logger: recordingLogger(),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });

let codec: Codec;
let schemaId: number;
/** How a stage reads a topic that takes the wire format only. */
const strictRead = { plainJsonAllowed: false };

beforeAll(async () => {
  codec = newCodec();
  schemaId = await codec.register(subject, observationSchema);
});

afterAll(async () => {
  await dropSubjects(url, ns.id);
});

/** The rejection a promise ends with, for asserting on a Fault's fields. */
async function failure(promise: Promise<unknown>): Promise<Fault> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Fault)) throw new Error(`expected a Fault, got ${String(error)}`);
  return error;
}

describe('createCodec against the real registry', () => {
  it('registers a schema once per subject: again, and from another process, the same id', async () => {
    expect(await codec.register(subject, observationSchema)).toBe(schemaId);
    expect(await newCodec().register(subject, observationSchema)).toBe(schemaId);
    const subjects = (await (await fetch(`${url}/subjects`)).json()) as string[];
    expect(subjects).toContain(subject);
  });

  it('encodes in the wire format that a codec with an empty cache decodes', async () => {
    const bytes = await codec.encode(subject, observation);
    expect(bytes.readUInt8(0)).toBe(0);
    expect(bytes.readInt32BE(1)).toBe(schemaId);
    expect(JSON.parse(bytes.subarray(5).toString('utf8'))).toEqual(observation);
    expect(await newCodec().decode(bytes, { plainJsonAllowed: false })).toEqual({
      value: observation,
      schemaId,
    });
  });

  it('refuses to write a value its schema rejects, naming paths and keywords but no values', async () => {
    const fault = await failure(
      codec.encode(subject, { ...observation, outcome: 'exploded', tenant_id: 'secret-tenant' }),
    );
    expect(fault).toMatchObject({ code: CODEC_FAULTS.invalidMessage, retriable: false });
    expect(fault.message).toContain('/outcome: enum');
    expect(fault.message).toContain('additionalProperties tenant_id');
    expect(fault.message).not.toContain('secret-tenant');
    expect(fault.message).not.toContain('exploded');
  });

  it('asserts formats when it writes', async () => {
    const fault = await failure(codec.encode(subject, { ...observation, at: 'yesterday' }));
    expect(fault.message).toContain('/at: format');
  });

  it('refuses to write what the gate could not read back (a lone surrogate, a __proto__ key)', async () => {
    const lone = await failure(codec.encode(subject, { ...observation, message: 'a\uD800b' }));
    expect(lone).toMatchObject({ code: CODEC_FAULTS.invalidMessage, retriable: false });
    expect(lone.message).toContain('would not decode: invalid_json');

    const looseSchema = { $schema: observationSchema.$schema, type: 'object' };
    const looseSubject = `${ns.topic('loose')}-value`;
    await codec.register(looseSubject, looseSchema);
    const proto = JSON.parse('{"__proto__": {"admin": true}}') as unknown;
    const fault = await failure(codec.encode(looseSubject, proto));
    expect(fault.message).toContain('forbidden_key');
  });

  it('refuses to write to a subject it has not registered', async () => {
    const fault = await failure(codec.encode(`${ns.topic('nowhere')}-value`, observation));
    expect(fault).toMatchObject({ code: CODEC_FAULTS.unregisteredSubject, retriable: false });
  });

  it('refuses a schema that is not strict draft 2020-12 before calling the registry', async () => {
    const typo = {
      ...observationSchema,
      properties: { ...observationSchema.properties, proposalId: { type: 'string', minLenght: 1 } },
    };
    const typoSubject = `${ns.topic('typo')}-value`;
    const fault = await failure(codec.register(typoSubject, typo));
    expect(fault).toMatchObject({ code: CODEC_FAULTS.schemaRejected, retriable: false });
    expect(fault.message).toContain('minLenght');
    const subjects = (await (await fetch(`${url}/subjects`)).json()) as string[];
    expect(subjects).not.toContain(typoSubject);
  });

  it('reports a schema change the registry refuses as schema_rejected, not as an outage', async () => {
    const changedSubject = `${ns.topic('changed')}-value`;
    await codec.register(changedSubject, observationSchema);
    const retyped = {
      ...observationSchema,
      properties: { ...observationSchema.properties, proposalId: { type: 'integer' } },
    };
    const fault = await failure(newCodec().register(changedSubject, retyped));
    expect(fault).toMatchObject({ code: CODEC_FAULTS.schemaRejected, retriable: false });
  });
});

describe('decoding what arrives', () => {
  const plain = { plainJsonAllowed: true };
  const strict = { plainJsonAllowed: false };

  it('accepts plain JSON only where the topic allows it', async () => {
    const bytes = Buffer.from(` ${JSON.stringify(observation)}`);
    expect(await codec.decode(bytes, plain)).toEqual({ value: observation, schemaId: null });
    expect(await codec.decode(bytes, strict)).toEqual({
      error: 'undecodable: plain JSON is not accepted on this topic',
    });
  });

  it('refuses duplicate keys in plain JSON and in the wire format alike', async () => {
    const text = '{"proposalId":"p-1","proposalId":"p-2"}';
    const asPlain = await codec.decode(Buffer.from(text), plain);
    const asWire = await codec.decode(toWireFormat(schemaId, Buffer.from(text)), strict);
    for (const decoded of [asPlain, asWire]) {
      expect(decoded).toMatchObject({
        error: expect.stringMatching(/^undecodable: duplicate_key/) as unknown,
      });
    }
  });

  it('refuses lone surrogates, escaped or raw, and bytes that are not UTF-8', async () => {
    const escaped = await codec.decode(Buffer.from('{"a":"\\ud800"}'), plain);
    expect(escaped).toMatchObject({
      error: expect.stringMatching(/^undecodable: invalid_json/) as unknown,
    });
    const notUtf8 = await codec.decode(
      Buffer.from([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
      plain,
    );
    expect(notUtf8).toEqual({ error: 'undecodable: not UTF-8' });
  });

  it('refuses a message deeper than 64 levels or larger than 1 MiB', async () => {
    const deep = `${'{"a":'.repeat(65)}1${'}'.repeat(65)}`;
    expect(await codec.decode(Buffer.from(deep), plain)).toMatchObject({
      error: expect.stringMatching(/^undecodable: too_deep/) as unknown,
    });
    const large = Buffer.from(JSON.stringify({ a: 'x'.repeat(1024 * 1024) }));
    expect(await codec.decode(large, plain)).toMatchObject({
      error: expect.stringMatching(/^undecodable: .*exceed/) as unknown,
    });
  });

  it('answers bad bytes with an error and never throws', async () => {
    const cases = [
      null,
      Buffer.alloc(0),
      Buffer.from('hello'),
      Buffer.from([0, 0, 1]),
      Buffer.from('[1]'),
    ];
    for (const bytes of cases) {
      const decoded = await codec.decode(bytes, plain);
      expect(decoded).toMatchObject({ error: expect.stringMatching(/^undecodable: /) as unknown });
    }
  });

  it('calls a wire-format record whose schema id the registry does not know undecodable', async () => {
    const decoded = await codec.decode(toWireFormat(2_000_000_000, Buffer.from('{}')), strict);
    expect(decoded).toEqual({ error: 'undecodable: schema id 2000000000 is not in the registry' });
  });

  it('does not take a schema the registry has but its client cannot read for an outage', async () => {
    // A shared registry holds other teams' schemas, some with references, which the registry
    // client refuses to load; anyone may name such an id in a record's wire-format header.
    const post = async (name: string, body: object) => {
      const response = await fetch(`${url}/subjects/${encodeURIComponent(name)}/versions`, {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
        body: JSON.stringify(body),
      });
      return ((await response.json()) as { id: number }).id;
    };
    const draft = 'https://json-schema.org/draft/2020-12/schema';
    const base = `${ns.topic('base')}-value`;
    await post(base, {
      schemaType: 'JSON',
      schema: JSON.stringify({ $schema: draft, $id: 'base.json', type: 'object' }),
    });
    const referencing = await post(`${ns.topic('referencing')}-value`, {
      schemaType: 'JSON',
      schema: JSON.stringify({ $schema: draft, $ref: 'base.json' }),
      references: [{ name: 'base.json', subject: base, version: 1 }],
    });
    const decoded = await newCodec().decode(
      toWireFormat(referencing, Buffer.from('{"proposalId":"p-1"}')),
      { plainJsonAllowed: true },
    );
    expect(decoded).toEqual({ value: { proposalId: 'p-1' }, schemaId: referencing });
  });
});

describe('an unreachable registry', () => {
  let silent: Server;
  let silentUrl: string;

  beforeAll(async () => {
    // Accepts connections and never answers: a registry that hangs.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('is a retriable registry_unavailable when registering and when decoding the wire format', async () => {
    const down = newCodec('http://127.0.0.1:1');
    const onRegister = await failure(down.register(`${ns.topic('down')}-value`, observationSchema));
    expect(onRegister).toMatchObject({ code: CODEC_FAULTS.unavailable, retriable: true });
    const onDecode = await failure(
      down.decode(toWireFormat(schemaId, Buffer.from('{}')), { plainJsonAllowed: false }),
    );
    expect(onDecode).toMatchObject({ code: CODEC_FAULTS.unavailable, retriable: true });
  });

  it('still decodes plain JSON, which needs no registry', async () => {
    const down = newCodec('http://127.0.0.1:1');
    expect(await down.decode(Buffer.from('{"a":1}'), { plainJsonAllowed: true })).toEqual({
      value: { a: 1 },
      schemaId: null,
    });
  });

  it('gives up on a registry that does not answer after the timeout, as retriable', async () => {
    const hanging = newCodec(silentUrl, 300);
    const fault = await failure(
      hanging.decode(toWireFormat(7, Buffer.from('{}')), { plainJsonAllowed: false }),
    );
    expect(fault).toMatchObject({ code: CODEC_FAULTS.unavailable, retriable: true });
    expect(fault.message).toContain('no answer within 300 ms');
  });
});

describe('clients outside the gate, which register nothing', () => {
  it('adopt the schema the gate registered and write under its id', async () => {
    const client = newCodec();
    expect(await client.adopt(subject, observationSchema)).toBe(schemaId);
    const bytes = await client.encode(subject, observation);
    expect(await codec.decode(bytes, strictRead)).toEqual({ value: observation, schemaId });
  });

  it('are told, retriably, that a schema the gate has not registered is not there, and register nothing', async () => {
    const absent = `${ns.topic('not-registered')}-value`;
    const fault = await failure(newCodec().adopt(absent, observationSchema));
    expect(fault).toMatchObject({ code: CODEC_FAULTS.schemaNotRegistered, retriable: true });
    const response = await fetch(`${url}/subjects`);
    expect((await response.json()) as string[]).not.toContain(absent);
  });
});

describe('records naming schema ids the registry does not know', () => {
  let proxy: Server;
  let proxyUrl: string;
  const lookups: string[] = [];

  beforeAll(async () => {
    // In front of the registry, counting the schema look-ups the codec makes.
    proxy = createServer((request, response) => {
      const path = request.url ?? '/';
      if (path.includes('/schemas/ids/')) lookups.push(path);
      const target = new URL(url);
      fetch(`${target.origin}${path}`, { method: request.method ?? 'GET' })
        .then(async (answer) => {
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => {
          response.writeHead(502);
          response.end();
        });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const base = new URL(url);
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${base.pathname}`;
  });

  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it('cost at most one registry look-up per id, however often each comes', async () => {
    const reader = newCodec(proxyUrl);
    const ids = Array.from({ length: 200 }, (_, i) => 1_900_000_000 + i);
    for (let round = 0; round < 3; round += 1) {
      for (const id of ids) {
        const decoded = await reader.decode(toWireFormat(id, Buffer.from('{}')), strictRead);
        expect(decoded).toEqual({ error: `undecodable: schema id ${id} is not in the registry` });
      }
    }
    expect(lookups).toHaveLength(ids.length);
    expect(new Set(lookups).size).toBe(ids.length);
  });
});
