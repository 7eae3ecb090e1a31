/**
 * Finding the programs the stack runs: a Java of the right release, Maven, redis-server.
 * Kafka 4 runs on Java 17+; Apicurio Registry 3.3 is compiled for Java 21, so when the default
 * Java is older the driver looks for a newer JDK where installers put them.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import path from 'node:path';
import type { ComponentName } from './stack-config.js';
import { StackError } from './stack-error.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A Java runtime and its feature release (17, 21, 25…). */
export interface JavaRuntime {
  readonly path: string;
  readonly release: number;
}

/** Folders that hold one JDK per subfolder (Debian/Ubuntu, Fedora, macOS). */
export const JDK_FOLDERS = ['/usr/lib/jvm', '/Library/Java/JavaVirtualMachines'] as const;

/** The feature release in `java -version` output: `"17.0.15"` → 17, `"1.8.0_402"` → 8. */
export function parseJavaRelease(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match?.[1]) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] ? Number(match[2]) : first;
}

/** The full path of `command` on `PATH`, if it is there and executable. */
export function onPath(command: string, env: Env): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function releaseOf(java: string): number | undefined {
  const run = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 30_000 });
  return run.status === 0 ? parseJavaRelease(`${run.stderr}${run.stdout}`) : undefined;
}

/** The default Java: `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` on PATH. */
function defaultJava(env: Env): string | undefined {
  const home = env['JAVA_HOME'];
  if (home)
    return isExecutable(path.join(home, 'bin', 'java'))
      ? path.join(home, 'bin', 'java')
      : undefined;
  return onPath('java', env);
}

/** Installed JDKs' `java` executables, newest folder name first. */
function installedJavas(): string[] {
  return JDK_FOLDERS.flatMap((folder) => {
    try {
      return readdirSync(folder)
        .sort()
        .reverse()
        .flatMap((jdk) => [
          path.join(folder, jdk, 'bin', 'java'),
          path.join(folder, jdk, 'Contents', 'Home', 'bin', 'java'),
        ])
        .filter(isExecutable);
    } catch {
      return [];
    }
  });
}

/**
 * A Java of at least `minRelease` for `component`. Looks at `homeVariable` (if given and set),
 * then the default Java, then — only when a default Java exists but is too old — the installed
 * JDKs. Throws a `StackError` naming what is missing: a machine with no Java at all is told so
 * rather than being served a JDK it did not choose.
 */
export function findJava(
  component: ComponentName,
  minRelease: number,
  env: Env,
  homeVariable?: string,
): JavaRuntime {
  const chosenHome = homeVariable ? env[homeVariable] : undefined;
  if (chosenHome)
    return requireRelease(
      component,
      path.join(chosenHome, 'bin', 'java'),
      minRelease,
      homeVariable,
    );
  const java = defaultJava(env);
  if (java === undefined) {
    const where = env['JAVA_HOME']
      ? `JAVA_HOME=${env['JAVA_HOME']} has no bin/java`
      : 'java not found on PATH';
    throw new StackError(component, `${where}: install Java ${minRelease}+ (or set JAVA_HOME)`);
  }
  const release = releaseOf(java);
  if (release !== undefined && release >= minRelease) return { path: java, release };
  const newer = installedJavas()
    .map((p) => ({ path: p, release: releaseOf(p) ?? 0 }))
    .filter((r) => r.release >= minRelease)
    .sort((a, b) => b.release - a.release)[0];
  if (newer) return newer;
  const hint = homeVariable ? ` or set ${homeVariable}` : '';
  throw new StackError(
    component,
    `needs Java ${minRelease}+, found Java ${release ?? 'of unknown version'} at ${java}: install a newer JDK${hint}`,
  );
}

function requireRelease(
  component: ComponentName,
  java: string,
  minRelease: number,
  variable: string | undefined,
): JavaRuntime {
  const release = isExecutable(java) ? releaseOf(java) : undefined;
  if (release === undefined)
    throw new StackError(component, `${variable}: no working java at ${java}`);
  if (release < minRelease) {
    throw new StackError(
      component,
      `${variable}: Java ${release} at ${java} is older than ${minRelease}`,
    );
  }
  return { path: java, release };
}

/** `command` on PATH, or a `StackError` saying what it is for. */
export function requireTool(
  component: ComponentName,
  command: string,
  purpose: string,
  env: Env,
): string {
  const found = onPath(command, env);
  if (found === undefined)
    throw new StackError(component, `${command} not found on PATH: ${purpose}`);
  return found;
}
