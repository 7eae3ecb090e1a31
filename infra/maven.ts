/**
 * Fetching the stack's Java parts from Maven Central with `mvn` (infra/maven/pom.xml). Maven's own
 * cache (~/.m2, or `-Dmaven.repo.local` in MAVEN_OPTS) makes a second fetch fast; a stamp file
 * makes a second start in the same checkout skip Maven altogether.
 */
import { spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import {
  APICURIO_VERSION,
  KAFKA_VERSION,
  LOG4J_VERSION,
  type ComponentName,
  type StackConfig,
} from './stack-config.js';
import { StackError } from './stack-error.js';
import { requireTool } from './java.js';
import { seconds, type Reporter } from './wait.js';

const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
const STAMP = '.toolgate-fetched';
/** A first download on a slow line is long; a hung Maven is not. */
const FETCH_DEADLINE_MS = 20 * 60_000;

/** The folder holding Kafka's jars (fetched when missing). */
export function kafkaLibDir(config: StackConfig): string {
  return path.join(config.stackDir, 'kafka', 'libs');
}

/** The folder holding Apicurio Registry's `quarkus-run.jar` (fetched when missing). */
export function registryAppDir(config: StackConfig): string {
  return path.join(config.stackDir, 'registry', 'app');
}

/** Copies `kafka_2.13` and its runtime dependencies into {@link kafkaLibDir}, unless already there. */
export async function fetchKafka(config: StackConfig, reporter: Reporter): Promise<string> {
  const dir = kafkaLibDir(config);
  const goal = `${DEPENDENCY_PLUGIN}:copy-dependencies`;
  await fetchOnce({
    component: 'kafka',
    what: `Kafka ${KAFKA_VERSION} jars`,
    dir,
    version: KAFKA_VERSION,
    expect: `kafka_2.13-${KAFKA_VERSION}.jar`,
    goalArgs: [goal, `-DoutputDirectory=${dir}`, '-DincludeScope=runtime'],
    config,
    reporter,
  });
  return dir;
}

/** Unpacks Apicurio Registry's `all` tar.gz into {@link registryAppDir}, unless already there. */
export async function fetchRegistry(config: StackConfig, reporter: Reporter): Promise<string> {
  const dir = registryAppDir(config);
  const artifact = `io.apicurio:apicurio-registry-app:${APICURIO_VERSION}:tar.gz:all`;
  await fetchOnce({
    component: 'registry',
    what: `Apicurio Registry ${APICURIO_VERSION}`,
    dir,
    version: APICURIO_VERSION,
    expect: 'quarkus-run.jar',
    goalArgs: [
      `${DEPENDENCY_PLUGIN}:unpack`,
      `-Dartifact=${artifact}`,
      `-DoutputDirectory=${dir}`,
      // The plugin skips an artifact its marker says it unpacked; keep markers with what they mark.
      `-DmarkersDirectory=${path.join(dir, '.markers')}`,
    ],
    config,
    reporter,
  });
  return dir;
}

/** Maven's log for one component's fetch. */
export function mavenLog(config: StackConfig, component: ComponentName): string {
  return path.join(config.logDir, `maven-${component}.log`);
}

/** One fetch: what to run, where it lands, and the file that proves it landed. */
interface Fetch {
  readonly component: ComponentName;
  readonly what: string;
  readonly dir: string;
  readonly version: string;
  /** A file that must exist in `dir` afterwards. */
  readonly expect: string;
  readonly goalArgs: readonly string[];
  readonly config: StackConfig;
  readonly reporter: Reporter;
}

async function fetchOnce(fetch: Fetch): Promise<void> {
  const { component, dir, config, reporter } = fetch;
  const stamp = path.join(dir, STAMP);
  const fetched = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === fetch.version;
  if (fetched && existsSync(path.join(dir, fetch.expect))) return;
  const mvn = requireTool(
    component,
    'mvn',
    'the stack fetches its Java parts with Maven 3',
    config.env,
  );
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  reporter.line(
    `${component}: fetching ${fetch.what} with Maven (the first time downloads from Maven Central)`,
  );
  const started = Date.now();
  await runMaven(component, mvn, fetch.goalArgs, config, reporter);
  if (!existsSync(path.join(dir, fetch.expect))) {
    const logFile = mavenLog(config, component);
    throw new StackError(component, `Maven finished but ${fetch.expect} is not in ${dir}`, {
      logFile,
    });
  }
  writeFileSync(stamp, `${fetch.version}\n`);
  reporter.line(`${component}: fetched ${fetch.what} in ${seconds(Date.now() - started)}`);
}

function runMaven(
  component: ComponentName,
  mvn: string,
  goalArgs: readonly string[],
  config: StackConfig,
  reporter: Reporter,
): Promise<void> {
  const logFile = mavenLog(config, component);
  mkdirSync(config.logDir, { recursive: true });
  const args = [
    '-B',
    '-f',
    path.join(config.repoRoot, 'infra', 'maven', 'pom.xml'),
    `-Dkafka.version=${KAFKA_VERSION}`,
    `-Dlog4j.version=${LOG4J_VERSION}`,
    `-Dtoolgate.stack.dir=${config.stackDir}`,
    ...goalArgs,
  ];
  return new Promise((resolve, reject) => {
    const log = createWriteStream(logFile);
    const child = spawn(mvn, args, {
      cwd: config.stackDir,
      env: { ...config.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const watch = watchOutput(child.stdout, child.stderr, log);
    const started = Date.now();
    const progress = setInterval(() => {
      reporter.line(
        `${component}: Maven still fetching (${seconds(Date.now() - started)}, ${watch.downloads()} files downloaded)`,
      );
    }, 15_000);
    const deadline = setTimeout(() => child.kill('SIGTERM'), FETCH_DEADLINE_MS);
    const finish = (error?: StackError): void => {
      clearInterval(progress);
      clearTimeout(deadline);
      log.end(() => (error ? reject(error) : resolve()));
    };
    child.once('error', (cause) =>
      finish(
        new StackError(component, `could not run ${mvn}: ${cause.message}`, { logFile, cause }),
      ),
    );
    child.once('close', (code, signal) => {
      if (code === 0) return finish();
      const why = signal
        ? `Maven stopped by ${signal} after ${seconds(Date.now() - started)}`
        : `mvn exited ${code}`;
      finish(
        new StackError(
          component,
          `download failed (${why}: ${watch.firstError() ?? 'see the log'})`,
          { logFile },
        ),
      );
    });
  });
}

/** Tees Maven's output to its log while counting downloads and keeping the first `[ERROR]` line. */
function watchOutput(
  stdout: NodeJS.ReadableStream,
  stderr: NodeJS.ReadableStream,
  log: NodeJS.WritableStream,
): { downloads(): number; firstError(): string | undefined } {
  let downloads = 0;
  let firstError: string | undefined;
  const scan = (chunk: Buffer | string): void => {
    log.write(chunk);
    for (const line of chunk.toString().split('\n')) {
      if (line.includes('Downloaded from')) downloads += 1;
      const error = /\[ERROR\]\s+(\S.*)/.exec(line)?.[1];
      if (firstError === undefined && error) firstError = error.slice(0, 300);
    }
  };
  stdout.on('data', scan);
  stderr.on('data', scan);
  return { downloads: () => downloads, firstError: () => firstError };
}
