import {
  createObservationVerifier,
  deriveToolKey,
  INTEGRITY_HEADER,
  OBSERVATION_SIGNATURE_HEADER,
  PROOF_HEADER,
  SESSION_HEADER,
  verifyToolProof,
  type Command,
} from '@toolgate/shared';
import { generateOutputKeys } from './gate-keys.js';
import { describe, expect, it } from 'vitest';
import {
  createGateOutputs,
  MAX_QUARANTINE_HEADER_BYTES,
  MAX_QUARANTINE_VALUE_BYTES,
  QUARANTINE_HEADERS_DROPPED_HEADER,
  QUARANTINE_VALUE_BYTES_HEADER,
} from './gate-outputs.js';
import { gateTopics } from './gate-topics.js';
import { MAX_REQUEST_RECORD_BYTES, recordBytes } from './kafka/index.js';

const outputs = createGateOutputs(
  gateTopics('ns.'),
  generateOutputKeys(),
  new Set(['acme', 'globex']),
);

describe('createGateOutputs: quarantine', () => {
  it("keeps undecodable bytes and their headers, but never the caller's session token", () => {
    const raw = Buffer.from('{"truncated":');
    const quarantined = outputs.quarantine(raw, {
      [SESSION_HEADER]: 'the-callers-session-token',
      [INTEGRITY_HEADER]: 'ab'.repeat(32),
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(quarantined).toEqual({
      topic: 'ns.toolgate.quarantine',
      key: null,
      raw,
      headers: {
        [INTEGRITY_HEADER]: 'ab'.repeat(32),
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
    });
  });

  it('drops the session header whatever its case', () => {
    const quarantined = outputs.quarantine(Buffer.from('x'), {
      'Toolgate-Session': 'token',
      'TOOLGATE-SESSION': 'token',
    });
    expect(quarantined.headers).toEqual({});
  });

  it('keeps a value of exactly the most bytes whole, and no header says it was cut', () => {
    const raw = Buffer.alloc(MAX_QUARANTINE_VALUE_BYTES, 0xff);
    const quarantined = outputs.quarantine(raw, { traceparent: 't' });
    expect(quarantined.raw).toBe(raw);
    expect(quarantined.headers).toEqual({ traceparent: 't' });
  });

  it('keeps the first bytes of a larger value, says how long it was, and fits one request', () => {
    // As large as the broker takes by default: more than one request of the gate may carry.
    const raw = Buffer.alloc(1024 * 1024, 0xff);
    raw.write('{"start":', 0);
    const quarantined = outputs.quarantine(raw, { traceparent: 't' });
    expect(quarantined.raw.equals(raw.subarray(0, MAX_QUARANTINE_VALUE_BYTES))).toBe(true);
    expect(quarantined.headers).toEqual({
      traceparent: 't',
      [QUARANTINE_VALUE_BYTES_HEADER]: String(1024 * 1024),
    });
    const record = { ...quarantined, value: quarantined.raw };
    expect(recordBytes(record)).toBeLessThan(MAX_REQUEST_RECORD_BYTES);
  });

  it('leaves out headers that are together over their bound, and counts them', () => {
    const half = 'h'.repeat(MAX_QUARANTINE_HEADER_BYTES / 2);
    const within = outputs.quarantine(Buffer.from('x'), { a: half.slice(2), b: half });
    expect(Object.keys(within.headers ?? {})).toEqual(['a', 'b']);
    const over = outputs.quarantine(Buffer.from('x'), { a: half, b: half, c: 'x' });
    expect(over.headers).toEqual({ [QUARANTINE_HEADERS_DROPPED_HEADER]: '3' });
  });
});

describe('createGateOutputs: observations', () => {
  const keys = generateOutputKeys();
  const signed = createGateOutputs(gateTopics('ns.'), keys, new Set(['acme', 'globex']));
  const observation = {
    proposalId: 'p-1',
    runId: 'run-1',
    requestId: 'req-1',
    outcome: 'rejected',
    disposition: 'deny',
    message: 'No session was presented.',
    at: '2026-12-07T12:00:00.000Z',
  } as const;

  it("goes to its tenant's own topic, keyed by run, signed over the bytes written", () => {
    const [out] = signed.observation(observation, 'globex');
    expect(out).toMatchObject({ topic: 'ns.toolgate.observations.globex', key: 'run-1' });
    const bytes = Buffer.from('the encoded observation');
    const header = out?.sign?.(bytes)[OBSERVATION_SIGNATURE_HEADER];
    const verify = createObservationVerifier([keys.observationKeys.publicKey]);
    expect(verify('ns.toolgate.observations.globex', bytes, header)).toBe(true);
    expect(verify('ns.toolgate.observations.acme', bytes, header)).toBe(false);
  });

  it('goes nowhere for a tenant that is not known or not served: no topic may show it', () => {
    expect(signed.observation(observation, undefined)).toEqual([]);
    expect(signed.observation(observation, 'initech')).toEqual([]);
  });
});

describe('createGateOutputs: commands', () => {
  const keys = generateOutputKeys();
  const command = { tool: 'refund_payment', idempotencyKey: 'key-1' } as Command;

  it("carry a proof made with their tool's key, which no other tool's key verifies", () => {
    const out = createGateOutputs(gateTopics('ns.'), keys, new Set(['acme'])).command(command);
    expect(out).toMatchObject({ topic: 'ns.toolgate.commands.refund_payment', key: 'key-1' });
    const bytes = Buffer.from('the encoded command');
    const proof = out.sign?.(bytes)[PROOF_HEADER];
    const keyOf = (tool: string) => deriveToolKey(keys.commandKey, tool);
    const topic = 'ns.toolgate.commands.refund_payment';
    expect(verifyToolProof([keyOf('refund_payment')], topic, bytes, proof)).toBeDefined();
    expect(verifyToolProof([keyOf('search')], topic, bytes, proof)).toBeUndefined();
  });

  it('cannot be made where no command key is held: only execute issues commands', () => {
    const { commandKey: _held, ...withoutCommandKey } = keys;
    const stage = createGateOutputs(gateTopics('ns.'), withoutCommandKey, new Set(['acme']));
    expect(() => stage.command(command)).toThrow(/only execute issues commands/);
  });
});
