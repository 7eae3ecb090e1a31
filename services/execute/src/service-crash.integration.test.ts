import type { ChildProcess } from 'node:child_process';
import { spawnTestChild, type TestChild } from '../../../test/support/spawn-child.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodec, SILENT_LOGGER } from '@toolgate/platform';
import type { ClearedEnvelope, Command } from '@toolgate/shared';
import deployment, { USERS } from '../../../test/support/deployment/index.js';
import { openaiChat } from '../../../test/support/proposals.js';
import { within } from '../../../test/support/deadline.js';
import {
  createClearedFeeder,
  closeHarnessWithWorker,
  everythingUnder,
  harnessTarget,
  keyOf,
  startHarnessWithWorker,
  type ToolWorker,
} from '../../../test/support/execute-fixtures.js';
import { gateEnv, identityEnv, type GateHarness } from '../../../test/support/gate-harness.js';
import { kafkaClient, stackAddresses } from '../../../test/support/stack.js';

let h: GateHarness;
let worker: ToolWorker;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // No stage in this process: the harness only creates the namespace's topics and schemas and taps
  // them; the execute stage runs in a child process that can be killed.
  ({ h, worker } = await startHarnessWithWorker({ label: 'execute-crash', modules: [] }));
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await closeHarnessWithWorker(h, worker);
});

/** Runs the execute stage in a child process; resolves `ready` once it joined its group. */
function executeChild(env: Record<string, string>): TestChild {
  const child = spawnTestChild('test/support/execute-child.ts', env);
  children.push(child.proc);
  return child;
}

/** Commands on `tool`'s topic under `key`, aborted transactions included (read uncommitted). */
async function uncommittedCommands(tool: string, key: string, least: number): Promise<Command[]> {
  const kafka = kafkaClient(`${h.ns.id}-peek`);
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT_LOGGER,
  });
  const consumer = kafka.consumer({ groupId: h.ns.group(`peek-${tool}`), readUncommitted: true });
  const found: Command[] = [];
  let enough: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (enough = resolve));
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [h.topic(`commands.${tool}`)], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (message.key?.toString() !== key) return;
        const decoded = await codec.decode(message.value, { plainJsonAllowed: true });
        if ('value' in decoded && (decoded.value as { sentinel?: unknown }).sentinel === undefined)
          found.push(decoded.value as Command);
        if (found.length >= least) enough();
      },
    });
    await within(30_000, `${least} uncommitted command(s) under ${key}`, done);
    return found;
  } finally {
    await consumer.disconnect();
  }
}

describe('the execute stage killed between publishing a command and committing', () => {
  it('is recovered by a restart: one visible command per key, one terminal observation per proposal', async () => {
    const env = {
      ...gateEnv(h.ns, {
        TOOLGATE_INTEGRITY_KEY: h.gate.config.integrityKey,
        TOOLGATE_INSTANCE_ID: `${h.ns.id}-execute`,
        ...identityEnv('toolgate-execute'),
      }),
      EXECUTE_CHILD_TIMEOUT_MS: '120000',
    };
    const first = executeChild({ ...env, TOOLGATE_TEST_KILL_AFTER_COMMAND: '1' });
    await within(60_000, 'the first execute process to join its group', first.ready);

    const feeder = createClearedFeeder(harnessTarget(h), deployment);
    const alice = USERS.alice;
    const envelopes: ClearedEnvelope[] = [
      await feeder.build(
        alice,
        openaiChat({ proposalId: 'p-crash-write', runId: 'run-crash' }, 'close_ticket', {
          ticket_id: 'tkt_1',
          resolution: 'done',
        }),
      ),
      await feeder.build(
        alice,
        openaiChat({ proposalId: 'p-crash-read', runId: 'run-crash' }, 'lookup', { query: 'x' }),
      ),
    ];
    for (const envelope of envelopes) await feeder.send(envelope);

    expect(await within(60_000, 'the first process to kill itself', first.exited)).toBe('SIGKILL');
    const write = envelopes[0]!;
    const writeKey = keyOf(write);
    // The killed transaction did write the command; only the missing commit hides it.
    const [aborted] = await uncommittedCommands('close_ticket', writeKey, 1);
    expect(worker.delivered).toHaveLength(0);

    const second = executeChild(env);
    await within(90_000, 'the restarted execute process to join its group', second.ready);
    for (const envelope of envelopes) {
      await h.waitFor(
        'observations',
        `the terminal observation of ${envelope.proposalId}`,
        (r) => r.value['proposalId'] === envelope.proposalId && r.value['outcome'] === 'result',
        1,
        60_000,
      );
    }

    for (const envelope of envelopes) {
      const visible = await everythingUnder(h, `commands.${envelope.tool}`, keyOf(envelope));
      expect(visible).toHaveLength(1);
    }
    // The re-issued command is the one the killed process sent, to the byte.
    const [visibleWrite] = await everythingUnder(h, 'commands.close_ticket', writeKey);
    expect(visibleWrite!.value).toEqual(aborted);
    expect(worker.delivered.map((c) => c.context.proposalId).sort()).toEqual([
      'p-crash-read',
      'p-crash-write',
    ]);
    const terminals = await everythingUnder(h, 'observations', 'run-crash');
    expect(terminals.map((r) => r.value['proposalId']).sort()).toEqual([
      'p-crash-read',
      'p-crash-write',
    ]);

    second.proc.kill('SIGTERM');
    expect(await within(30_000, 'the restarted process to stop', second.exited)).toBe(0);
  }, 240_000);
});
