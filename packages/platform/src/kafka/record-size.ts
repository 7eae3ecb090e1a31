/**
 * How many bytes of records one produce request may carry. kafkajs writes all of a request's
 * records for one partition as one record batch, and the broker refuses a batch larger than its
 * `message.max.bytes` (1,048,588 by default) with MESSAGE_TOO_LARGE, which no retry fixes: a
 * transaction that carried such a batch would fail again on every delivery, and the partitions
 * sharing it would never move. So the bus cuts a larger send into requests of at most
 * {@link MAX_REQUEST_RECORD_BYTES} (all in the same transaction, in order), and the stage loop
 * refuses to write a single record larger than that.
 */
import type { OutRecord } from './bus-types.js';

/**
 * The most bytes of records (as {@link recordBytes} counts them) in one produce request, and so in
 * one partition's batch: below Kafka's default `message.max.bytes`, with room for the batch's own
 * 61-byte header. A broker configured lower refuses larger batches all the same.
 */
export const MAX_REQUEST_RECORD_BYTES = 1_000_000;

/** The most bytes a record adds to its batch besides its key, value and headers (varints, flags). */
const RECORD_OVERHEAD = 41;
/** The most bytes a header adds besides its name and value (two length varints). */
const HEADER_OVERHEAD = 10;

/** An upper bound on the bytes `r` takes in a record batch (v2 format, uncompressed). */
export function recordBytes(r: OutRecord): number {
  let bytes = RECORD_OVERHEAD + r.value.length;
  if (r.key !== null) bytes += Buffer.byteLength(r.key, 'utf8');
  for (const [name, value] of Object.entries(r.headers ?? {})) {
    bytes += HEADER_OVERHEAD + Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  return bytes;
}

/**
 * `records` cut, in order, into runs of at most `maxBytes` each; a record larger than that alone
 * is a run of its own (the broker refuses it, and says so). One run for the usual small send.
 */
export function requestsOf(
  records: readonly OutRecord[],
  maxBytes = MAX_REQUEST_RECORD_BYTES,
): (readonly OutRecord[])[] {
  const runs: OutRecord[][] = [];
  let run: OutRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = recordBytes(r);
    if (run.length > 0 && bytes + size > maxBytes) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(r);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
