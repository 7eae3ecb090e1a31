/**
 * The validate stage killed (SIGKILL) and restarted several times while one tenant sends at a
 * quarter of its rate: the backlog each restart catches up on is counted in the seconds its
 * proposals reached the broker, so none is refused for arriving late, and every proposal still
 * ends in exactly one terminal observation.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnTestChild, type TestChild } from '../../../test/support/spawn-child.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USERS } from '../../../test/support/deployment/index.js';
import { openaiChat } from '../../../test/support/proposals.js';
import { eventually, within } from '../../../test/support/deadline.js';
import {
  closeHarnessWithWorker,
  startHarnessWithWorker,
  type ToolWorker,
} from '../../../test/support/execute-fixtures.js';
import {
  gateEnv,
  identityEnv,
  sessionHeaders,
  type GateHarness,
} from '../../../test/support/gate-harness.js';
import * as authorize from '../../authorize/src/service.js';
import * as confirm from '../../confirm/src/service.js';
import * as execute from '../../execute/src/service.js';

/** Proposals sent, at {@link PER_SECOND} a second: a quarter of the tenant's 100 a second. */
const PROPOSALS = 200;
const PER_SECOND = 25;
const KILLS = 3;
const TERMINAL = new Set(['result', 'rejected', 'expired', 'unknown_outcome']);

let h: GateHarness;
let worker: ToolWorker;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // Every stage but validate runs here; validate runs in a child process that can be killed.
  ({ h, worker } = await startHarnessWithWorker({
    label: 'validate-crash',
    modules: [authorize, confirm, execute],
  }));
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await closeHarnessWithWorker(h, worker);
});

/** Runs the validate stage in a child process; `ready` once it joined its group. */
function validateChild(env: Record<string, string>): TestChild {
  const child = spawnTestChild('test/support/validate-child.ts', env);
  children.push(child.proc);
  return child;
}

describe('the validate stage killed and restarted while a tenant sends at a quarter of its rate', () => {
  it('refuses none of the backlog for arriving late, and answers every proposal once', async () => {
    const env = gateEnv(h.ns, {
      TOOLGATE_INTEGRITY_KEY: h.gate.config.integrityKey,
      TOOLGATE_INSTANCE_ID: `${h.ns.id}-validate`,
      ...identityEnv('toolgate-validate'),
    });
    let child = validateChild(env);
    await within(60_000, 'the first validate process to join its group', child.ready);
    const alice = await h.session(USERS.alice, 3600);
    const ids = Array.from({ length: PROPOSALS }, (_, i) => `p-steady-${i + 1}`);
    const sending = (async () => {
      const started = Date.now();
      for (const [i, proposalId] of ids.entries()) {
        // Paced by the clock (a rate, not a wait for an event): proposal i leaves at i / 25 s.
        const due = started + (i * 1000) / PER_SECOND;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        const runId = `run-steady-${i % 20}`;
        const call = openaiChat({ proposalId, runId }, 'lookup', { query: `q${i}` });
        await h.send('proposals', runId, call, sessionHeaders(alice));
      }
    })();
    const terminal = () =>
      h.seen('observations').filter((r) => TERMINAL.has(String(r.value['outcome'])));
    for (let kill = 1; kill <= KILLS; kill += 1) {
      // Killed once it has answered some of what was sent since it started (or all but one).
      const before = terminal().length;
      await eventually(60_000, `progress before kill ${kill}`, () =>
        Promise.resolve(terminal().length > Math.min(before + 2, PROPOSALS - 1)),
      );
      child.proc.kill('SIGKILL');
      expect(await within(30_000, `kill ${kill}`, child.exited)).toBe('SIGKILL');
      child = validateChild(env);
      await within(60_000, `validate restarted after kill ${kill}`, child.ready);
    }
    await sending;
    await eventually(120_000, 'a terminal observation of every proposal', () => {
      const answered = new Set(terminal().map((r) => String(r.value['proposalId'])));
      return Promise.resolve(ids.every((id) => answered.has(id)));
    });
    const answers = terminal().filter((r) => ids.includes(String(r.value['proposalId'])));
    const limited = answers.filter((r) => r.value['code'] === 'rate_limited');
    expect(limited.map((r) => r.value['proposalId'])).toEqual([]);
    const perProposal = new Map<string, number>();
    for (const r of answers) {
      const id = String(r.value['proposalId']);
      perProposal.set(id, (perProposal.get(id) ?? 0) + 1);
    }
    expect([...perProposal.values()].filter((n) => n !== 1)).toEqual([]);
    expect(perProposal.size).toBe(PROPOSALS);
    expect(answers.every((r) => r.value['outcome'] === 'result')).toBe(true);
  }, 240_000);
});
