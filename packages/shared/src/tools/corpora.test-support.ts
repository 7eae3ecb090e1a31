/**
 * Where the shared test corpora live: `../shared/corpora/` from the repository root. Tests read
 * them in place; nothing is copied into the project.
 */
import { fileURLToPath } from 'node:url';

/** Absolute path of a file or folder in the shared corpora. */
export function corpusPath(...segments: readonly string[]): string {
  return fileURLToPath(
    new URL(['../../../../../shared/corpora', ...segments].join('/'), import.meta.url),
  );
}
