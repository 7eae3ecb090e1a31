/**
 * Where the shared test corpora live: `TOOLGATE_CORPORA_DIR`, else `../shared/corpora/` beside the
 * repository. Tests read them in place; nothing is copied into the project. Every test that reads
 * a corpus finds it here (`@toolgate/shared/corpora` from other packages).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The corpora folder this run reads. */
export const CORPORA_DIR =
  process.env['TOOLGATE_CORPORA_DIR'] ??
  fileURLToPath(new URL('../../../../shared/corpora/', import.meta.url));

/**
 * Absolute path of a file or folder in the shared corpora.
 *
 * @throws Error naming the folder and the two ways to provide it, when it is missing.
 */
export function corpusPath(...segments: readonly string[]): string {
  if (!existsSync(CORPORA_DIR))
    throw new Error(
      `the shared test corpora are not at ${CORPORA_DIR}: clone the project next to them (../shared/corpora) or set TOOLGATE_CORPORA_DIR`,
    );
  return join(CORPORA_DIR, ...segments);
}
