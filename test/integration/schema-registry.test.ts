import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { afterAll, describe, expect, it } from 'vitest';
import { testNamespace } from '../support/namespace.js';
import { stackAddresses } from '../support/stack.js';

const ns = testNamespace('registry');
const subject = `${ns.topic('proposals')}-value`;
const url = stackAddresses().schemaRegistryUrl;

// Apicurio infers the artifact type from the content; `$schema` makes a JSON Schema unmistakable.
const proposalSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    proposalId: { type: 'string', minLength: 1 },
    runId: { type: 'string', minLength: 1 },
    attempt: { type: 'integer', minimum: 0 },
  },
  required: ['proposalId', 'runId'],
  additionalProperties: false,
};

const register = (registry: SchemaRegistry) =>
  registry.register({ type: SchemaType.JSON, schema: JSON.stringify(proposalSchema) }, { subject });

afterAll(async () => {
  // Soft delete, then hard delete, as the Confluent API requires.
  await fetch(`${url}/subjects/${subject}`, { method: 'DELETE' });
  await fetch(`${url}/subjects/${subject}?permanent=true`, { method: 'DELETE' });
});

describe('JSON Schema on the real registry (Confluent API)', () => {
  it('registers a schema under its subject, and registering it again returns the same id', async () => {
    const { id } = await register(new SchemaRegistry({ host: url }));
    const again = await register(new SchemaRegistry({ host: url }));
    expect(again.id).toBe(id);
    const subjects = (await (await fetch(`${url}/subjects`)).json()) as string[];
    expect(subjects).toContain(subject);
  });

  it('encodes in the Confluent wire format, and a client with no cache decodes it by id', async () => {
    const { id } = await register(new SchemaRegistry({ host: url }));
    const payload = { proposalId: 'p-81f2', runId: 'run-7', attempt: 0 };
    const encoded = await new SchemaRegistry({ host: url }).encode(id, payload);

    expect(encoded.readUInt8(0)).toBe(0);
    expect(encoded.readInt32BE(1)).toBe(id);
    expect(JSON.parse(encoded.subarray(5).toString('utf8'))).toEqual(payload);
    // A fresh client knows nothing: it must fetch schema `id` from the registry to decode.
    expect(await new SchemaRegistry({ host: url }).decode(encoded)).toEqual(payload);
  });

  it('refuses to encode a payload the schema does not allow', async () => {
    const registry = new SchemaRegistry({ host: url });
    const { id } = await register(registry);
    const invalid = { proposalId: 'p-1', runId: 'run-1', tenant_id: 'someone-else' };
    // The library does not export its error classes; the name is its contract.
    await expect(registry.encode(id, invalid)).rejects.toMatchObject({
      name: 'ConfluentSchemaRegistryValidationError',
    });
  });
});
