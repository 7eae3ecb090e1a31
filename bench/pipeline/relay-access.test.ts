import { describe, expect, it } from 'vitest';
import { deriveToolKey, parseToolKeys, toolProof, verifyToolProof } from '@toolgate/shared';
import { relayBindings, toolKeyEntries } from './relay-access.js';

describe('relayBindings', () => {
  it("grants bench-relay the run's relay topics, groups and transactional ids, by prefix only", () => {
    const bindings = relayBindings({ topicPrefix: 't-1.relay.', groupPrefix: 't-1.relay.' });
    expect(bindings).toHaveLength(4);
    expect(bindings.every((b) => b.principal === 'bench-relay')).toBe(true);
    expect(bindings.every((b) => b.patternType === 'PREFIXED')).toBe(true);
    expect(bindings.every((b) => b.resourceName === 't-1.relay.')).toBe(true);
    const grants = bindings.map((b) => `${b.resourceType} ${b.operation}`).sort();
    expect(grants).toEqual(['GROUP READ', 'TOPIC READ', 'TOPIC WRITE', 'TRANSACTIONAL_ID WRITE']);
  });

  it('refuses an empty prefix, which would grant every topic of the cluster', () => {
    expect(() => relayBindings({ topicPrefix: '', groupPrefix: 't-1.relay.' })).toThrow(TypeError);
    expect(() => relayBindings({ topicPrefix: 't-1.relay.', groupPrefix: '' })).toThrow(TypeError);
  });
});

describe('toolKeyEntries', () => {
  it('gives the echo worker the keys that verify what hop4 proves with the command key', () => {
    const commandKey = 'k'.repeat(64);
    const keys = parseToolKeys(toolKeyEntries(commandKey, ['search', 'final']).split(','));
    const bytes = Buffer.from('{"commandId":"r.t.0"}');
    const proof = toolProof(deriveToolKey(commandKey, 'final'), 't.commands.final', bytes);
    expect(
      verifyToolProof(keys.get('final') ?? [], 't.commands.final', bytes, proof),
    ).toBeDefined();
    expect(verifyToolProof(keys.get('search') ?? [], 't.commands.final', bytes, proof)).toBe(
      undefined,
    );
  });
});
