/**
 * The console as a process: its variables checked before anything starts, its URL printed, a loud
 * warning when development sign-ins are on, and one stop.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isConfigurationError } from '@toolgate/platform';
import deployment from '../../../test/support/deployment/index.js';
import { superviseConsole } from './supervise-console.js';

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-console-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(env: Record<string, string>) {
  const printed: string[] = [];
  const logged: string[] = [];
  const exits: number[] = [];
  const started = superviseConsole({
    env: { TOOLGATE_CONSOLE_PORT: '0', TOOLGATE_LOG_LEVEL: 'warn', ...env },
    deployment,
    print: (line) => printed.push(line),
    logDestination: { write: (line: string) => void logged.push(line) },
    exit: (code) => exits.push(code),
    process: new EventEmitter(),
  });
  return { started, printed, logged, exits };
}

describe('superviseConsole', () => {
  it('prints where it listens, serves the sign-in page there, and stops once', async () => {
    const { started, printed, logged, exits } = run({});
    const supervised = await started;
    expect(printed).toEqual([`console: http://127.0.0.1:${supervised.console.port}/\n`]);
    expect((await fetch(`http://127.0.0.1:${supervised.console.port}/`)).status).toBe(200);
    expect(logged.join('')).not.toContain('DEVELOPMENT SIGN-INS');
    await supervised.lifecycle.stop('test over');
    expect(exits).toEqual([0]);
  });

  it('warns loudly at start when development sign-ins are on', async () => {
    const file = path.join(dir, 'dev.json');
    writeFileSync(file, JSON.stringify([{ label: 'alice', token: 'x.y.z' }]));
    const { started, logged } = run({ TOOLGATE_CONSOLE_DEV_SIGN_INS: file });
    const supervised = await started;
    expect(logged.join('')).toContain('DEVELOPMENT SIGN-INS ARE ON');
    await supervised.lifecycle.stop('test over');
  });

  it('refuses bad variables, naming each, before listening', async () => {
    const { started, printed } = run({
      TOOLGATE_CONSOLE_PORT: 'x',
      TOOLGATE_APPROVAL_URL: 'ftp://nowhere',
    });
    const error: unknown = await started.catch((e: unknown) => e);
    expect(isConfigurationError(error)).toBe(true);
    const problems = (error as { problems: string[] }).problems.join('\n');
    expect(problems).toContain('TOOLGATE_CONSOLE_PORT');
    expect(problems).toContain('TOOLGATE_APPROVAL_URL');
    expect(printed).toEqual([]);
  });
});
