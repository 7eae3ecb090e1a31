import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXAMPLE_WORKER } from '@toolgate/platform';
import { deriveToolKey, observationPublicKeyOf } from '@toolgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../run-cli.test-support.js';

let stackDir: string;

beforeAll(() => {
  stackDir = mkdtempSync(path.join(tmpdir(), 'toolgate-stack-env-'));
});

afterAll(() => {
  rmSync(stackDir, { recursive: true, force: true });
});

const cli = (args: string[]) => runCaptured(args, { env: { TOOLGATE_STACK_DIR: stackDir } });

/** The variables of `stack env <principal>`, read back from its export lines. */
async function envOf(principal: string): Promise<Record<string, string>> {
  const { code, out, err } = await cli(['stack', 'env', principal]);
  expect({ code, err }).toEqual({ code: 0, err: '' });
  const lines = out.trimEnd().split('\n');
  return Object.fromEntries(
    lines.map((line) => {
      const match = /^export (TOOLGATE_[A-Z_]+)='([^']*)'$/.exec(line);
      expect(match, line).not.toBeNull();
      return [match?.[1] ?? '', match?.[2] ?? ''];
    }),
  );
}

/** The keys the stack made in its secrets folder. */
function gateKeys(): Record<'integrityKey' | 'commandKey' | 'observationKey', string> {
  const file = path.join(stackDir, 'secrets', 'gate-keys.json');
  return JSON.parse(readFileSync(file, 'utf8')) as ReturnType<typeof gateKeys>;
}

describe('toolgate stack env', () => {
  it("gives a stage its Kafka identity as a password file, and the stages' keys", async () => {
    const env = await envOf('toolgate-validate');
    const keys = gateKeys();
    expect(env).toMatchObject({
      TOOLGATE_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      TOOLGATE_KAFKA_USERNAME: 'toolgate-validate',
      TOOLGATE_KAFKA_PASSWORD_FILE: path.join(
        stackDir,
        'secrets',
        'kafka',
        'toolgate-validate.password',
      ),
      TOOLGATE_INTEGRITY_KEY: keys.integrityKey,
      TOOLGATE_OBSERVATION_KEY: keys.observationKey,
    });
    expect(env).not.toHaveProperty('TOOLGATE_KAFKA_PASSWORD');
    expect(env).not.toHaveProperty('TOOLGATE_COMMAND_KEY');
  });

  it('gives the command key to execute alone', async () => {
    const list = await cli(['stack', 'env', '--list']);
    const principals = list.out
      .trimEnd()
      .split('\n')
      .map((line) => line.split(' ')[0] ?? '');
    expect(principals).toContain('toolgate-execute');
    for (const principal of principals) {
      const env = await envOf(principal);
      expect('TOOLGATE_COMMAND_KEY' in env, principal).toBe(principal === 'toolgate-execute');
    }
    expect((await envOf('toolgate-execute'))['TOOLGATE_COMMAND_KEY']).toBe(gateKeys().commandKey);
  });

  it("gives the worker its own tools' keys, and neither the integrity nor a signing key", async () => {
    const env = await envOf(EXAMPLE_WORKER.principal);
    const { commandKey } = gateKeys();
    expect(env['TOOLGATE_TOOL_KEYS']).toBe(
      EXAMPLE_WORKER.tools.map((tool) => `${tool}:${deriveToolKey(commandKey, tool)}`).join(','),
    );
    expect(env['TOOLGATE_WORKER_NAME']).toBe(EXAMPLE_WORKER.name);
    for (const name of ['INTEGRITY_KEY', 'OBSERVATION_KEY', 'COMMAND_KEY'])
      expect(env, name).not.toHaveProperty(`TOOLGATE_${name}`);
  });

  it('gives an agent its tenant and the observation public key, and no private key', async () => {
    const { code, out } = await cli(['stack', 'env', 'agent-acme']);
    expect(code).toBe(0);
    const env = await envOf('agent-acme');
    const keys = gateKeys();
    expect(env['TOOLGATE_TENANT']).toBe('acme');
    expect(env['TOOLGATE_OBSERVATION_PUBLIC_KEYS']).toBe(
      observationPublicKeyOf(keys.observationKey),
    );
    for (const secret of [keys.integrityKey, keys.commandKey, keys.observationKey])
      expect(out).not.toContain(secret);
    expect(Object.keys(env).filter((name) => /KEY$/.test(name))).toEqual([]);
  });

  it('lists every principal with its role', async () => {
    const { code, out } = await cli(['stack', 'env', '--list']);
    expect(code).toBe(0);
    expect(out).toMatch(/^admin +the stack's super user/m);
    expect(out).toMatch(/^toolgate-validate +the validate stage$/m);
    expect(out).toMatch(/^agent-globex +agents of tenant globex$/m);
    expect(out).toMatch(/^worker-billing +the example's tool worker/m);
  });

  it('refuses an unknown principal, or none, pointing at --list', async () => {
    expect(await cli(['stack', 'env', 'mallory'])).toEqual({
      code: 2,
      out: '',
      err: 'toolgate stack: stack env: the stack has no principal "mallory"; toolgate stack env --list names them\n',
    });
    expect(await cli(['stack', 'env'])).toMatchObject({
      code: 2,
      err: 'toolgate stack: stack env: name one principal, or --list\n',
    });
    expect(await cli(['stack', 'env', 'admin', '--list'])).toMatchObject({ code: 2 });
    expect(await cli(['stack', 'status', '--list'])).toMatchObject({
      code: 2,
      err: 'toolgate stack: stack status takes no --list\n',
    });
  });
});
