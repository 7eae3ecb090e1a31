/** Line-by-line reading of a stream, for NDJSON input. */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** Yields each line of `input` (without its line break), skipping blank lines. */
export async function* readLines(input: Readable): AsyncGenerator<string> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() !== '') yield line;
  }
}
