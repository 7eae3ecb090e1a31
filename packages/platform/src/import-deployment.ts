/**
 * Loads a deployment configuration file (`toolgate.config.ts`) and checks its shape, so a wrong
 * file gives one clear message rather than a crash deep inside a stage. TypeScript files need a
 * loader (tsx) registered by the process, as the `toolgate` binary does.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, type Deployment } from '@toolgate/shared';

/** Imports `path` (relative to `cwd`) and returns its default export, or throws a ConfigError. */
export async function importDeployment(path: string, cwd = process.cwd()): Promise<Deployment> {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new ConfigError('deployment', [`config file not found: ${path}`]);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (cause) {
    throw new ConfigError(
      'deployment',
      [`config file ${path} could not be loaded: ${String(cause)}`],
      { cause },
    );
  }
  const problems = shapeProblems(module.default);
  if (problems.length > 0) {
    throw new ConfigError(
      'deployment',
      problems.map((p) => `config file ${path} does not export a deployment: ${p}`),
    );
  }
  return module.default as Deployment;
}

function shapeProblems(d: unknown): string[] {
  if (typeof d !== 'object' || d === null)
    return ['the default export is not an object (use defineDeployment)'];
  const o = d as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof o['name'] !== 'string') problems.push('`name` must be a string');
  if (!Array.isArray(o['tools'])) problems.push('`tools` must be an array of tool definitions');
  if (!Array.isArray(o['policies'])) problems.push('`policies` must be an array of {name, text}');
  if (typeof o['sessions'] !== 'object' || o['sessions'] === null)
    problems.push('`sessions` must name its keys (a JWKS URL or file, or a secret) and issuer');
  if (o['objects'] !== undefined && typeof o['objects'] !== 'function') {
    problems.push('`objects`, when given, must be a function returning an object store');
  }
  if (o['seed'] !== undefined && !Array.isArray(o['seed']))
    problems.push('`seed`, when given, must be an array of objects');
  return problems;
}
