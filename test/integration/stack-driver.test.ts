import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { redisTarget } from '@toolgate/platform';
import { onPath } from '../../infra/java.js';
import { isListening } from '../../infra/ports.js';
import { processStamp } from '../../infra/processes.js';
import { within } from '../support/deadline.js';
import { identityEnv } from '../support/gate-harness.js';
import { redisAdminUrl, stackAddresses } from '../support/stack.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function tempDir(label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `toolgate-${label}-`));
  scratch.push(dir);
  return dir;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `infra/stack.ts <command>` as `npm run stack:<command>` would, with `env`. */
function stackCli(command: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const args = ['--import', 'tsx', path.join('infra', 'stack.ts'), command];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: repoRoot, env, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * A local port nobody listens on (the kernel picks it; the listener is closed again once `hold`
 * has run, so ports picked inside `hold` differ from it).
 */
async function freePort(hold: () => Promise<void> = () => Promise.resolve()): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  try {
    await hold();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return port;
}

/** A TCP server that answers every connection with an HTTP error: something that is not Kafka. */
async function impostor(): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const close = () => {
    server.close();
    for (const socket of sockets) socket.destroy();
  };
  return { port, close };
}

/**
 * `process.env` without the TOOLGATE_STACK_* variables of the stack under test: a throw-away stack
 * is one Kafka node and one redis-server, on the ports its test gives it, whatever the size of the
 * stack the suite runs on.
 */
function unshapedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('TOOLGATE_STACK_')),
  );
}

/** An environment for a throw-away stack in its own directory, Redis pointed at the real one. */
async function isolatedEnv(overrides: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  // Two distinct ports: the stack refuses a controller listener on its client listener's port.
  let controller = 0;
  const kafka = await freePort(async () => {
    controller = await freePort();
  });
  return {
    ...unshapedEnv(),
    TOOLGATE_STACK_DIR: tempDir('stack'),
    TOOLGATE_REDIS_URL: redisAdminUrl(),
    TOOLGATE_STACK_KAFKA_PORT: String(kafka),
    TOOLGATE_STACK_KAFKA_CONTROLLER_PORT: String(controller),
    ...overrides,
  };
}

function idle(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], {
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

const alive = (pid: number): boolean => processStamp(pid) !== undefined;

describe('stack:up on a machine that cannot run the stack', () => {
  it('names the taken port, who holds it, the variable that moves it and the log, in one line', async () => {
    const squatter = await impostor();
    try {
      const env = await isolatedEnv({ TOOLGATE_STACK_KAFKA_PORT: String(squatter.port) });
      const run = await stackCli('up', env);

      expect(run.code).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^stack:up failed: kafka: port 127\\.0\\.0\\.1:${squatter.port} is taken by .*\\(pid ${process.pid}\\), ` +
            'which is not a Kafka broker started by stack:up: stop it or set TOOLGATE_STACK_KAFKA_PORT ' +
            '\\(log: .*kafka\\.log\\)$',
        ),
      );
      expect(readdirSync(path.join(env['TOOLGATE_STACK_DIR'] ?? '', 'run'))).toEqual([]);
    } finally {
      squatter.close();
    }
  });

  it('says Java is missing, in one line, before starting anything', async () => {
    const env = await isolatedEnv({ PATH: tempDir('empty-path') });
    delete env['JAVA_HOME'];
    const run = await stackCli('up', env);

    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      'stack:up failed: kafka: java not found on PATH: install Java 17+ (or set JAVA_HOME)',
    );
    expect(readdirSync(path.join(env['TOOLGATE_STACK_DIR'] ?? '', 'run'))).toEqual([]);
  });

  it("says the download failed, with Maven's own error and its log, in one line", async () => {
    const bin = tempDir('bin');
    const java = onPath('java', process.env);
    if (java) symlinkSync(java, path.join(bin, 'java'));
    const mvn = path.join(bin, 'mvn');
    writeFileSync(
      mvn,
      [
        '#!/bin/sh',
        'echo "[INFO] Scanning for projects..."',
        'echo "[ERROR] Failed to execute goal: Could not transfer artifact org.apache.kafka:kafka_2.13:pom:4.4.0: Connection refused"',
        'exit 1',
      ].join('\n'),
    );
    chmodSync(mvn, 0o755);
    const env = await isolatedEnv({ PATH: bin });
    delete env['JAVA_HOME'];
    const run = await stackCli('up', env);

    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toMatch(
      /^stack:up failed: kafka: download failed \(mvn exited 1: Failed to execute goal: Could not transfer artifact .*Connection refused\) \(log: .*maven-kafka\.log\)$/,
    );
  });
});

describe('stack:up and stack:down with a Redis of their own', () => {
  it('starts redis-server when none answers, and stops only that', async () => {
    const port = await freePort();
    // A stack directory of its own, with the running Kafka and registry given as external: a
    // new directory has credentials of its own, which the running Kafka does not know.
    const env: NodeJS.ProcessEnv = {
      ...unshapedEnv(),
      TOOLGATE_STACK_DIR: tempDir('redis'),
      TOOLGATE_STACK_REDIS_PORT: String(port),
      TOOLGATE_KAFKA_BROKERS: stackAddresses().kafkaBrokers.join(','),
      ...identityEnv('admin'),
      TOOLGATE_SCHEMA_REGISTRY_URL: stackAddresses().schemaRegistryUrl,
    };
    delete env['TOOLGATE_REDIS_URL'];

    const up = await stackCli('up', env);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/stack: redis: started \(pid \d+/);
    expect(await isListening('127.0.0.1', port)).toBe(true);

    const down = await stackCli('down', env);
    expect(down.stdout).toMatch(/stack: redis: stopped \(pid \d+\)/);
    expect(down.stdout).toContain('kafka: external (TOOLGATE_KAFKA_BROKERS), left alone');
    expect(down.stdout).toContain('registry: external (TOOLGATE_SCHEMA_REGISTRY_URL), left alone');
    expect(await isListening('127.0.0.1', port)).toBe(false);
    expect((await stackCli('status', process.env)).code).toBe(0);
  });
});

describe('stack:down', () => {
  it('stops the process its pid file records and leaves a reused pid alone', async () => {
    const stackDir = tempDir('down');
    const recorded = idle();
    const impostorPid = idle();
    const runDir = path.join(stackDir, 'run');
    mkdirSync(runDir, { recursive: true });
    const pidFile = (name: string, pid: number, stamp: string) =>
      writeFileSync(
        path.join(runDir, `${name}.pid`),
        JSON.stringify({ pid, stamp, command: 'test', startedAt: '' }),
      );
    pidFile('registry', recorded.pid ?? -1, processStamp(recorded.pid ?? -1) ?? '');
    // Same pid, different start stamp: what a pid file looks like after the pid was reused.
    pidFile('kafka', impostorPid.pid ?? -1, 'a-process-that-has-since-exited');
    const exited = new Promise((resolve) => recorded.once('exit', resolve));

    const run = await stackCli('down', { ...unshapedEnv(), TOOLGATE_STACK_DIR: stackDir });

    expect(run.stdout).toContain(`registry: stopped (pid ${recorded.pid})`);
    expect(run.stdout).toContain('kafka: was not running');
    await within(10_000, 'the recorded process to exit', exited);
    expect(alive(impostorPid.pid ?? -1)).toBe(true);
    expect(existsSync(path.join(runDir, 'kafka.pid'))).toBe(false);
  });
});

describe('stack:up and stack:status on the running stack', () => {
  it('reuses every component instead of starting another', async () => {
    const before = pidFiles();
    const run = await stackCli('up', process.env);
    expect(run.code).toBe(0);
    for (const component of ['redis', 'kafka', 'registry']) {
      expect(run.stdout).toMatch(new RegExp(`stack: ${component}: reusing `));
    }
    expect(pidFiles()).toEqual(before);
  });

  it('reports each component as up, with its address', async () => {
    const run = await stackCli('status', process.env);
    const { kafkaBrokers, schemaRegistryUrl } = stackAddresses();
    // Status shows the address, never a user's password.
    const redisUrl = inject('stack').redisUrl;
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(redisTarget(stackAddresses().redisUrl).password);
    expect(run.stdout).toMatch(new RegExp(`^redis +up +${escape(redisUrl)}`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^kafka +up +${escape(kafkaBrokers.join(','))}`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^registry +up +${escape(schemaRegistryUrl)}`, 'm'));
  });
});

function pidFiles(): Record<string, string> {
  const runDir = path.join(
    process.env['TOOLGATE_STACK_DIR'] ?? path.join(repoRoot, '.stack'),
    'run',
  );
  if (!existsSync(runDir)) return {};
  return Object.fromEntries(
    readdirSync(runDir).map((f) => [f, readFileSync(path.join(runDir, f), 'utf8')]),
  );
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
