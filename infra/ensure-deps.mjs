// Dependency-free on purpose: `npm test` and `npm start` run this first (pretest/prestart), so a
// fresh clone works without a prior `npm install`. It runs `npm ci` when node_modules is missing
// or older than package-lock.json or a file in patches/ (patch-package applies those on install),
// and does nothing otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lock = path.join(root, 'package-lock.json');
// npm writes this hidden lockfile on every install: its age is the age of node_modules.
const installed = path.join(root, 'node_modules', '.package-lock.json');

const patches = path.join(root, 'patches');
const inputs = [
  lock,
  ...(existsSync(patches) ? readdirSync(patches).map((f) => path.join(patches, f)) : []),
];
const newest = Math.max(...inputs.map((f) => statSync(f).mtimeMs));
const stale = !existsSync(installed) || statSync(installed).mtimeMs < newest;
if (stale) {
  const started = Date.now();
  console.log(
    'ensure-deps: node_modules is missing or older than package-lock.json or patches/; running npm ci',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, ['ci'], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(
      `ensure-deps: npm ci failed (exit ${run.status ?? run.signal}); see its output above`,
    );
    process.exit(1);
  }
  console.log(
    `ensure-deps: dependencies installed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}
