import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyBytes, toWireFormat, WIRE_HEADER_BYTES } from './classify-bytes.js';

const bytes = (...values: number[]) => Buffer.from(values);

describe('classifyBytes', () => {
  it('reads the schema id and payload of the wire format', () => {
    const framed = toWireFormat(258, Buffer.from('{"a":1}'));
    expect(framed.subarray(0, WIRE_HEADER_BYTES)).toEqual(bytes(0, 0, 0, 1, 2));
    const shape = classifyBytes(framed);
    expect(shape).toMatchObject({ kind: 'wire', schemaId: 258 });
    expect(shape.kind === 'wire' && shape.payload.toString()).toBe('{"a":1}');
  });

  it('round-trips any positive schema id and payload', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.uint8Array(), (id, payload) => {
        const shape = classifyBytes(toWireFormat(id, Buffer.from(payload)));
        return (
          shape.kind === 'wire' &&
          shape.schemaId === id &&
          shape.payload.equals(Buffer.from(payload))
        );
      }),
    );
  });

  it('calls a wire-format header cut short "other"', () => {
    expect(classifyBytes(bytes(0, 0, 0, 1))).toEqual({
      kind: 'other',
      reason: 'wire format cut short: 4 bytes',
    });
  });

  it('refuses schema id 0 and negative ids', () => {
    expect(classifyBytes(bytes(0, 0, 0, 0, 0, 0x7b)).kind).toBe('other');
    expect(classifyBytes(bytes(0, 0xff, 0xff, 0xff, 0xff, 0x7b)).kind).toBe('other');
  });

  it('accepts a JSON object after JSON whitespace', () => {
    expect(classifyBytes(Buffer.from(' \t\r\n{"a":1}')).kind).toBe('json');
  });

  it.each([
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"text"'],
    ['a byte-order mark before the object', '\uFEFF{}'],
    ['a form feed, which JSON does not count as whitespace', '\f{}'],
    ['only whitespace', '   '],
    ['Avro-looking bytes', '\u0002\u0006abc'],
  ])('calls %s "other"', (_what, text) => {
    expect(classifyBytes(Buffer.from(text)).kind).toBe('other');
  });

  it('calls a tombstone and an empty value "other", saying which', () => {
    expect(classifyBytes(null)).toEqual({ kind: 'other', reason: 'no value (a tombstone)' });
    expect(classifyBytes(Buffer.alloc(0))).toEqual({ kind: 'other', reason: 'empty value' });
  });
});
