/**
 * The console's pages and scripts: every file under `public/` and the uPlot files from
 * node_modules under `/vendor/`, each a route of its own, listed once at start. A path that is not
 * one of them is 404, so no request can name a file outside those (no directory traversal).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { route, type Route } from '@toolgate/platform';
import { originRefusal, type ConsoleOrigin } from './web-guard.js';

/** Where the console's own files are. */
export const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));

/** Content types of the files served, by extension. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

/** Pages served at paths of their own. */
const PAGES: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/dashboard': 'dashboard.html',
};

/** uPlot's files, by the name they are served under in `/vendor/`. */
const VENDOR: Readonly<Record<string, string>> = {
  'uPlot.esm.js': 'uplot/dist/uPlot.esm.js',
  'uPlot.min.css': 'uplot/dist/uPlot.min.css',
};

/** A file to serve: its URL path and where it is. */
interface Served {
  readonly urlPath: string;
  readonly file: string;
}

/** Routes for every served file; `dir` defaults to {@link PUBLIC_DIR}. */
export function staticRoutes(origin: ConsoleOrigin, dir: string = PUBLIC_DIR): readonly Route[] {
  const require = createRequire(import.meta.url);
  const files: Served[] = [
    ...listFiles(dir).map((relative) => ({
      urlPath: `/${relative}`,
      file: path.join(dir, relative),
    })),
    ...Object.entries(PAGES).map(([urlPath, name]) => ({ urlPath, file: path.join(dir, name) })),
    ...Object.entries(VENDOR).map(([name, id]) => ({
      urlPath: `/vendor/${name}`,
      file: require.resolve(id),
    })),
  ];
  return files
    .filter((f) => CONTENT_TYPES[path.extname(f.file)] !== undefined)
    .map(({ urlPath, file }) => {
      const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
      const text = readFileSync(file, 'utf8');
      return route('GET', urlPath, (request) => {
        const refused = originRefusal(request, origin);
        return refused ?? { status: 200, body: text, headers: { 'content-type': type } };
      });
    });
}

/** Paths of the files under `dir`, relative to it, with `/` separators. */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) return listFiles(dir, relative);
    return entry.isFile() ? [relative] : [];
  });
}
