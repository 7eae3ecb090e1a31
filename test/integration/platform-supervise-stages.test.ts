/**
 * How a process of stages ends when it cannot go on: a stage loop that stops on its own (its
 * producer fenced) stops the process with exit code 1, and a start that fails closes what it
 * opened and leaves the exit code to its caller, so bad configuration exits 2 with every problem
 * named. Against the real stack (Kafka, the registry, Redis); the mains run as child processes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as validate from '@toolgate/validate';
import {
  isConfigurationError,
  stageGroup,
  superviseStages,
  type SupervisedStages,
} from '@toolgate/platform';
import { ConfigError, type ToolDefinitionError } from '@toolgate/shared';
import deployment from '../support/deployment/index.js';
import { eventually, within } from '../support/deadline.js';
import { dropGateNamespace, gateEnv } from '../support/gate-harness.js';
import { provisionNamespace, testNamespace } from '../support/namespace.js';
import { kafkaClient } from '../support/stack.js';

const ns = testNamespace('supervise');
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const testConfig = path.join(repoRoot, 'test/support/deployment/index.ts');
const noSignals = { on: () => undefined, off: () => undefined };
const BROKEN_POLICY = { name: 'broken.cedar', text: 'permit(principal, action' };

let scratch: string;
/** A deployment file: the test deployment, with a Cedar policy that does not parse. */
let brokenConfig: string;
/** A deployment file: the test deployment, with a tool that declares an identity field. */
let identityConfig: string;
const started: SupervisedStages[] = [];

beforeAll(async () => {
  await provisionNamespace(ns, {
    tools: deployment.tools.map((t) => t.name),
    tenants: deployment.tenants,
  });
  scratch = mkdtempSync(path.join(tmpdir(), 'toolgate-supervise-'));
  brokenConfig = path.join(scratch, 'broken.config.mts');
  writeFileSync(
    brokenConfig,
    `import deployment from ${JSON.stringify(testConfig)};\n` +
      `export default { ...deployment, policies: [${JSON.stringify(BROKEN_POLICY)}] };\n`,
  );
  identityConfig = path.join(scratch, 'identity.config.mts');
  writeFileSync(
    identityConfig,
    `import deployment from ${JSON.stringify(testConfig)};\n` +
      `const [first, ...rest] = deployment.tools;\n` +
      `const input = { ...first.input, properties: { ...first.input.properties, tenant_id: { type: 'string' } } };\n` +
      `export default { ...deployment, tools: [{ ...first, input }, ...rest] };\n`,
  );
});

afterAll(async () => {
  for (const stages of started) {
    await stages.lifecycle.stop('test finished');
    stages.lifecycle.dispose();
  }
  rmSync(scratch, { recursive: true, force: true });
  await dropGateNamespace(ns, kafkaClient(`${ns.id}-cleanup`));
}, 60_000);

/** Log lines as objects, and the exit codes asked for, of one supervised start. */
function recorder() {
  const lines: Record<string, unknown>[] = [];
  const exits: number[] = [];
  return {
    lines,
    exits,
    logDestination: {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    },
    exit: (code: number) => void exits.push(code),
  };
}

/** Runs a Node program of the repository; resolves with its exit code and standard error. */
function run(args: readonly string[], env: Readonly<Record<string, string>>) {
  const child = spawn(process.execPath, ['--no-turbo-inline-js-wasm-calls', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  return within(
    90_000,
    `${args.join(' ')} to exit`,
    new Promise<{ code: number | null; stderr: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, stderr })),
    ),
  );
}

describe('superviseStages: a stage loop that stops on its own', () => {
  it('stops the process with exit code 1 and a fatal line naming the stage and the usurped transactional id when its producer is fenced', async () => {
    const r = recorder();
    const gate = await superviseStages({
      env: gateEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-fenced`, TOOLGATE_LOG_LEVEL: 'info' }),
      deployment,
      modules: [validate],
      logDestination: r.logDestination,
      exit: r.exit,
      process: noSignals,
    });
    started.push(gate);
    await eventually(60_000, 'validate to join its group', () => Promise.resolve(gate.ready()));

    // Another instance takes over the transactional id, as a restarted pod with the same name does.
    const transactionalId = `${stageGroup(gate.config.groupPrefix, 'validate')}.${gate.config.instanceId}`;
    const usurper = gate.runtime.bus.producer({ transactionalId });
    await usurper.connect();
    try {
      // The next transaction of validate's loop finds its producer fenced.
      const kafka = kafkaClient(`${ns.id}-agent`);
      const agent = kafka.producer();
      await agent.connect();
      await agent.send({
        topic: `${ns.id}.toolgate.proposals`,
        messages: [{ key: 'run-1', value: 'not json at all' }],
      });
      await agent.disconnect();
      await eventually(30_000, 'the process to be stopped after the crash', () =>
        Promise.resolve(r.exits.length > 0),
      );
    } finally {
      await usurper.disconnect();
    }

    expect(r.exits).toEqual([1]);
    expect(gate.ready()).toBe(false);
    // Said as what it is: restarting would fence the usurper in turn.
    expect(r.lines).toContainEqual(
      expect.objectContaining({
        level: 'fatal',
        stage: 'validate',
        msg: 'fenced: a newer process with the same instance id took over this stage, or this one stalled past its transaction timeout; stopping the process',
        err: expect.objectContaining({
          code: 'kafka_fenced',
          message: expect.stringContaining(
            `the transactional id "${transactionalId}" was fenced`,
          ) as unknown,
        }) as unknown,
      }),
    );
    expect(r.lines).toContainEqual(
      expect.objectContaining({ msg: 'stopped', reason: 'validate stage loop crashed', code: 1 }),
    );
  }, 120_000);
});

describe('superviseStages: a start that fails', () => {
  it('throws the ConfigError of a Cedar policy that does not parse, and leaves the exit to its caller', async () => {
    const r = recorder();
    const starting = superviseStages({
      env: gateEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-cedar` }),
      deployment: { ...deployment, policies: [BROKEN_POLICY] },
      modules: [validate],
      logDestination: r.logDestination,
      exit: r.exit,
      process: noSignals,
    });
    const error: unknown = await starting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.join('\n')).toContain('broken.cedar');
    expect(r.exits).toEqual([]);
  }, 90_000);

  it('throws the ConfigError of a tool the registry refuses before creating anything for it', async () => {
    const r = recorder();
    const [first] = deployment.tools;
    if (first === undefined) throw new Error('the test deployment has no tools');
    const error: unknown = await superviseStages({
      env: gateEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-tool-name` }),
      deployment: {
        ...deployment,
        tools: [...deployment.tools, { ...first, name: 'renamed.v2' }, first],
      },
      modules: [validate],
      logDestination: r.logDestination,
      exit: r.exit,
      process: noSignals,
    }).catch((e: unknown) => e);
    expect(isConfigurationError(error)).toBe(true);
    const problems = (error as ToolDefinitionError).problems.join('\n');
    expect(problems).toContain('renamed.v2');
    expect(problems).toContain(first.name);
    expect(r.exits).toEqual([]);
    const admin = kafkaClient(`${ns.id}-tool-name`).admin();
    await admin.connect();
    try {
      expect(
        (await admin.listTopics()).filter((t) => t.startsWith(ns.id) && t.includes('renamed')),
      ).toEqual([]);
    } finally {
      await admin.disconnect();
    }
  }, 90_000);

  it('logs the cause of a start that failed otherwise (its HTTP port in use), having closed the stage', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const r = recorder();
    try {
      const error: unknown = await superviseStages({
        env: gateEnv(ns, {
          TOOLGATE_INSTANCE_ID: `${ns.id}-port`,
          TOOLGATE_HTTP_PORT: String(port),
          TOOLGATE_LOG_LEVEL: 'info',
        }),
        deployment,
        modules: [validate],
        logDestination: r.logDestination,
        exit: r.exit,
        process: noSignals,
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      taken.close();
    }
    expect(r.exits).toEqual([]);
    // A second instance on the host is the likely cause: the line names the variable to change.
    expect(r.lines).toContainEqual(
      expect.objectContaining({ level: 'error', port, variable: 'TOOLGATE_HTTP_PORT' }),
    );
    expect(r.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'stopping',
        reason: 'start-up failed',
        err: expect.objectContaining({ code: 'EADDRINUSE' }) as unknown,
      }),
    );
    expect(r.lines).toContainEqual(expect.objectContaining({ msg: 'stage loop stopped' }));
  }, 90_000);
});

describe('a stage process given bad configuration', () => {
  it('exits 2 from its main, naming every problem', async () => {
    const { code, stderr } = await run(['--import', 'tsx', 'services/validate/src/main.ts'], {
      ...gateEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-main` }),
      TOOLGATE_CONFIG: brokenConfig,
    });
    expect(stderr).toMatch(/^toolgate: invalid policy set:\n {2}- .*broken\.cedar/m);
    expect(code).toBe(2);
  }, 120_000);

  it('exits 2 from its main and from `toolgate start` for a tool that declares an identity field', async () => {
    const env = gateEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-identity` });
    const main = await run(['--import', 'tsx', 'services/validate/src/main.ts'], {
      ...env,
      TOOLGATE_CONFIG: identityConfig,
    });
    expect(main.stderr).toMatch(
      /^toolgate: Tool definitions refused .*\n {2}- lookup: .*tenant_id/m,
    );
    expect(main.code).toBe(2);
    const cli = await run(
      ['packages/cli/bin/toolgate.js', 'start', 'validate', '--config', identityConfig],
      env,
    );
    expect(cli.stderr).toContain('tenant_id');
    expect(cli.code).toBe(2);
  }, 180_000);

  it('exits 2 from `toolgate start`, naming every problem', async () => {
    const { code, stderr } = await run(
      ['packages/cli/bin/toolgate.js', 'start', 'validate', '--config', brokenConfig],
      gateEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-cli` }),
    );
    expect(stderr).toContain('toolgate start: invalid policy set:');
    expect(stderr).toContain('broken.cedar');
    expect(code).toBe(2);
  }, 120_000);
});
