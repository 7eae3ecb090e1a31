/**
 * Reads the store's Lua scripts from `scripts/` beside this module, as BullMQ keeps its commands:
 * one `.lua` file per script, and parts that several scripts share in `scripts/includes/`, pulled
 * in by a line `--- @include "<path>"` (relative to the including file, `.lua` implied). Each
 * script runs atomically in Redis, which is why it exists; numbers that Redis stores (scores,
 * versions, TTLs) are computed in TypeScript and passed as decimal strings, so no Lua number
 * formatting ever reaches a key or a score.
 *
 * Takes are idempotent per taker: a pending command or confirmation remembers the token of whoever
 * took it, and the same token gets the same answer again. A reply lost with a dropped connection
 * is then harmless: Kafka redelivers the message, the handler takes again with the same token
 * (its message's coordinates) and carries on, where a plain GETDEL would answer "gone" and the
 * proposal would never get its terminal observation.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A script and its SHA-1 (the EVALSHA handle). */
export interface StoreScript {
  /** The operation's name in faults and metrics: the file name in snake case. */
  readonly name: string;
  readonly lua: string;
  readonly sha: string;
}

/** Where the `.lua` files are: read from the sources, under tsx and vitest alike. */
const SCRIPTS_DIR = fileURLToPath(new URL('./scripts/', import.meta.url));

const INCLUDE = /^--- @include "([^"]+)"$/;

/**
 * The script `scripts/<file>.lua` (e.g. `take-and-settle`), its includes resolved. Read once, when
 * the module that runs it is loaded.
 *
 * @throws Error naming the file when a script or an include cannot be read.
 */
export function loadScript(file: string): StoreScript {
  const lua = withIncludes(path.join(SCRIPTS_DIR, `${file}.lua`), new Set());
  const name = file.replaceAll('-', '_');
  return Object.freeze({ name, lua, sha: createHash('sha1').update(lua).digest('hex') });
}

/**
 * The text of `file` with each include line replaced by the included file's text. A file is
 * included once per script, however many of its parts ask for it.
 */
function withIncludes(file: string, included: Set<string>): string {
  const lines = readFileSync(file, 'utf8').split(/(?<=\n)/);
  return lines
    .map((line) => {
      const include = INCLUDE.exec(line.trimEnd());
      if (include === null) return line;
      const target = path.resolve(path.dirname(file), `${include[1] ?? ''}.lua`);
      if (included.has(target)) return '';
      included.add(target);
      return withIncludes(target, included);
    })
    .join('');
}
