/**
 * The first look at a record's bytes: Confluent wire format (magic byte 0, a 4-byte big-endian
 * schema id, then the JSON payload), a plain JSON object (first non-whitespace byte `{`), or
 * neither. Pure, so every edge is unit-tested without a registry.
 */

/** The Confluent wire format's magic byte. */
export const WIRE_MAGIC_BYTE = 0;

/** Bytes before the payload in the wire format: the magic byte and the schema id. */
export const WIRE_HEADER_BYTES = 5;

/** What a record's bytes look like. */
export type RecordBytes =
  | { readonly kind: 'wire'; readonly schemaId: number; readonly payload: Buffer }
  | { readonly kind: 'json'; readonly text: Buffer }
  | { readonly kind: 'other'; readonly reason: string };

const OPEN_BRACE = 0x7b;
// RFC 8259 whitespace: space, tab, line feed, carriage return.
const JSON_WHITESPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);

function firstNonWhitespace(bytes: Buffer): number | undefined {
  for (const byte of bytes) if (!JSON_WHITESPACE.has(byte)) return byte;
  return undefined;
}

function classifyWire(bytes: Buffer): RecordBytes {
  if (bytes.length < WIRE_HEADER_BYTES) {
    return { kind: 'other', reason: `wire format cut short: ${bytes.length} bytes` };
  }
  const schemaId = bytes.readInt32BE(1);
  if (schemaId <= 0) return { kind: 'other', reason: `wire format with schema id ${schemaId}` };
  return { kind: 'wire', schemaId, payload: bytes.subarray(WIRE_HEADER_BYTES) };
}

/**
 * Classifies a record value. `null` (a tombstone) and empty values are `other`; a leading zero
 * byte is the wire format (or `other` when its header is cut short or names an id ≤ 0); a first
 * non-whitespace byte `{` is plain JSON. Never throws.
 */
export function classifyBytes(bytes: Buffer | null): RecordBytes {
  if (bytes === null) return { kind: 'other', reason: 'no value (a tombstone)' };
  if (bytes.length === 0) return { kind: 'other', reason: 'empty value' };
  if (bytes[0] === WIRE_MAGIC_BYTE) return classifyWire(bytes);
  if (firstNonWhitespace(bytes) === OPEN_BRACE) return { kind: 'json', text: bytes };
  return { kind: 'other', reason: 'neither the wire format (magic byte 0) nor a JSON object' };
}

/** `payload` framed in the wire format under `schemaId`. */
export function toWireFormat(schemaId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(WIRE_HEADER_BYTES);
  header.writeUInt8(WIRE_MAGIC_BYTE, 0);
  header.writeInt32BE(schemaId, 1);
  return Buffer.concat([header, payload]);
}
