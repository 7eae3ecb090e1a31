/**
 * Product files speak of the product, not of how the team worked on it: history goes in commit
 * messages. This check rejects the phrases of that history (a numbered stop or issue, the plan,
 * the team, an earlier session, a checkout of a commit) in the README, `docs/` and the sources of
 * every package, service, the example and the infrastructure, and prints each hit as
 * `file:line: phrase`.
 *
 * "session" alone is product (session tokens), so only phrases of the process match.
 *
 * Run it with `npx tsx scripts/check-process-words.ts` (exit 1 on any hit); the unit test beside
 * it runs the same check in `npm test`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** One phrase of the process found in a file. */
export interface ProcessWordHit {
  /** Path relative to the repository root, with `/` separators. */
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
  /** The text that matched. */
  readonly phrase: string;
}

/** The phrases of the team's process; each is matched case-insensitively. */
export const PROCESS_PHRASES: readonly RegExp[] = [
  /\bstops? \d+/i,
  /\bissues? #?\d+/i,
  /\bissue-\d+/i,
  /\b(?:the|this) issue(?:'s)? (?:asks|names|specifies|requires|says|wants|lists)\b/i,
  /\bthe issue's requirement/i,
  /\bthe plan\b/i,
  /\bplan of issue\b/i,
  /\bthe team\b/i,
  /\bsessions? \d+/i,
  /\b(?:earlier|later|previous|next) sessions?\b/i,
  /\bsessions? of the team\b/i,
  /\bcheckout of\b/i,
  /\bthe tracker\b/i,
  /\bcommit `?[0-9a-f]{7,40}\b/i,
  /\btaken back in `?[0-9a-f]{7,40}\b/i,
];

/** Where product text lives, relative to the repository root. */
export const SCANNED_ROOTS: readonly string[] = [
  'README.md',
  'CONTRIBUTING.md',
  'docs',
  'bench/README.md',
  'bench/core/README.md',
  'bench/pipeline/README.md',
  'examples',
  'infra',
];

/** Folders scanned under each of `packages/*` and `services/*`. */
const PACKAGE_FOLDERS = ['src'];
const PACKAGE_FILES = ['README.md'];

const TEXT_FILE = /\.(?:ts|mts|mjs|js|md|lua|cedar|cedarschema|json|ya?ml|xml)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.stack', 'coverage']);

/** Every hit of a process phrase in one file's text. Pure: the test feeds it planted lines. */
export function findProcessWords(file: string, text: string): ProcessWordHit[] {
  const hits: ProcessWordHit[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    for (const phrase of PROCESS_PHRASES) {
      const found = phrase.exec(line);
      if (found !== null) hits.push({ file, line: index + 1, phrase: found[0] });
    }
  }
  return hits;
}

/** The files the check reads, relative to `root`, sorted. */
export function scannedFiles(root: string): string[] {
  const roots = [...SCANNED_ROOTS];
  for (const parent of ['packages', 'services']) {
    for (const name of listDir(path.join(root, parent))) {
      roots.push(...PACKAGE_FOLDERS.map((folder) => `${parent}/${name}/${folder}`));
      roots.push(...PACKAGE_FILES.map((file) => `${parent}/${name}/${file}`));
    }
  }
  return roots.flatMap((relative) => walk(root, relative)).sort();
}

/** Every hit under `root` (the repository's root). */
export function checkProcessWords(root: string): ProcessWordHit[] {
  return scannedFiles(root).flatMap((file) =>
    findProcessWords(file, readFileSync(path.join(root, file), 'utf8')),
  );
}

function walk(root: string, relative: string): string[] {
  const full = path.join(root, relative);
  const stat = statOrUndefined(full);
  if (stat === undefined) return [];
  if (stat.isFile()) return TEXT_FILE.test(relative) ? [relative] : [];
  return listDir(full)
    .filter((name) => !SKIPPED_DIRS.has(name))
    .flatMap((name) => walk(root, `${relative}/${name}`));
}

function listDir(dir: string): string[] {
  return statOrUndefined(dir)?.isDirectory() === true ? readdirSync(dir) : [];
}

function statOrUndefined(file: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/** The repository's root: this file lives in `scripts/`. */
export const REPOSITORY_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function main(): void {
  const hits = checkProcessWords(REPOSITORY_ROOT);
  for (const hit of hits) process.stdout.write(`${hit.file}:${hit.line}: ${hit.phrase}\n`);
  if (hits.length > 0) {
    process.stderr.write(`${hits.length} phrase(s) of the team's process in product files\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}
