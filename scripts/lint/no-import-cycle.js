// @ts-check
/**
 * ESLint rule `toolgate/no-import-cycle`: no module may reach itself again through its relative
 * imports, type-only imports included. A cycle of types has no effect at run time, but it still
 * ties modules that should stand in layers, and it is how a runtime cycle starts. (The usual
 * `import-x/no-cycle` skips `import type` by design, which is why this rule exists.)
 *
 * Only relative imports are followed: a cycle between workspace packages cannot build, because
 * `tsc -b` refuses project references that form a cycle.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** @typedef {{ mtimeMs: number, imports: readonly string[] }} Edges */

/** The relative imports of each file read so far, with the modification time they were read at. */
/** @type {Map<string, Edges>} */
const edgesOf = new Map();

/**
 * The file a relative specifier names, as NodeNext resolves it for our sources: `./x.js` is
 * `./x.ts` when that exists. Undefined for a package specifier or a file that does not exist.
 * @param {string} specifier
 * @param {string} importer
 */
function resolveRelative(specifier, importer) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const target = path.resolve(path.dirname(importer), specifier);
  const candidates = target.endsWith('.js') ? [`${target.slice(0, -3)}.ts`, target] : [target];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile());
}

/**
 * The files `file` imports by relative path (imports, re-exports and `import()`, types included),
 * read from disk, again when the file has changed. `checked` holds the files already looked at
 * while linting one file, which are not looked at again.
 * @param {string} file
 * @param {Set<string>} checked
 * @returns {readonly string[]}
 */
function importsOf(file, checked) {
  const known = edgesOf.get(file);
  if (known !== undefined && checked.has(file)) return known.imports;
  checked.add(file);
  const mtimeMs = statSync(file).mtimeMs;
  if (known !== undefined && known.mtimeMs === mtimeMs) return known.imports;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const imports = importedFiles
    .map(({ fileName }) => resolveRelative(fileName, file))
    .filter((resolved) => resolved !== undefined);
  edgesOf.set(file, { mtimeMs, imports });
  return imports;
}

/**
 * A path of imports from `start` back to `home`, `start` first, or undefined when there is none.
 * @param {string} start
 * @param {string} home
 * @param {Set<string>} checked see {@link importsOf}
 * @returns {string[] | undefined}
 */
function pathBack(start, home, checked) {
  /** @type {Map<string, string | undefined>} */
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = /** @type {string} */ (queue.shift());
    for (const next of importsOf(file, checked)) {
      if (next === home) {
        /** @type {string[]} */
        const route = [];
        for (
          let at = /** @type {string | undefined} */ (file);
          at !== undefined;
          at = cameFrom.get(at)
        ) {
          route.unshift(at);
        }
        return route;
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid relative imports that lead back to the importing module.' },
    schema: [],
    messages: {
      cycle:
        'Import cycle: {{route}}. Move what both sides need into a module that neither imports.',
    },
  },
  create(context) {
    const home = context.physicalFilename;
    if (!path.isAbsolute(home) || !existsSync(home)) return {};
    const root = context.cwd;
    /** @type {Set<string>} */
    const checked = new Set();
    /** @param {import('estree').Node & { source?: unknown }} node */
    const check = (node) => {
      const source = /** @type {{ value?: unknown } | null | undefined} */ (node.source);
      if (typeof source?.value !== 'string') return;
      const target = resolveRelative(source.value, home);
      if (target === undefined || target === home) return;
      const route = pathBack(target, home, checked);
      if (route === undefined) return;
      const names = [home, ...route, home].map((file) => path.relative(root, file));
      context.report({ node, messageId: 'cycle', data: { route: names.join(' → ') } });
    };
    return {
      ImportDeclaration: check,
      ExportAllDeclaration: check,
      ExportNamedDeclaration: check,
      ImportExpression: check,
    };
  },
};
