import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssignerProtocol, type Admin } from 'kafkajs';
import * as execute from '@toolgate/execute';
import { createMetrics, superviseStages, type SupervisedStages } from '@toolgate/platform';
import deployment, { USERS } from '../support/deployment/index.js';
import { openaiChat, type ProposalIds } from '../support/proposals.js';
import {
  type ClearedFeeder,
  createClearedFeeder,
  dropGateSubjects,
  everythingUnder,
  harnessTarget,
  keyOf,
  startToolWorker,
  terminalOf,
  type ToolWorker,
  withTimeouts,
} from '../support/execute-fixtures.js';
import {
  gateEnv,
  identityEnv,
  startGateHarness,
  type GateHarness,
} from '../support/gate-harness.js';
import { eventually } from '../support/deadline.js';
import { recordingLogger } from '../support/recording-logger.js';
import { kafkaClient } from '../support/stack.js';

/** `publish_note` (a write) answers within 1.5 s or its outcome is unknown. */
const DEPLOYMENT = withTimeouts(deployment, { publish_note: 1500 });

const alice = USERS.alice;
let h: GateHarness;
let results: SupervisedStages;
let both: SupervisedStages | undefined;
let worker: ToolWorker;
let feeder: ClearedFeeder;
let admin: Admin;

// Execute's two halves in two processes of one namespace: the harness's issues commands
// (TOOLGATE_EXECUTE_INPUTS=cleared), a second settles results and sweeps deadlines. The last
// test adds a third that does both, as during a switch from one process to two.
beforeAll(async () => {
  h = await startGateHarness({
    label: 'execute-split',
    modules: [execute],
    deployment: DEPLOYMENT,
    env: { TOOLGATE_EXECUTE_INPUTS: 'cleared' },
  });
  results = await startExecute('results');
  worker = await startToolWorker(
    h.ns,
    (short) => h.topic(short),
    DEPLOYMENT.tools.map((t) => t.name),
  );
  feeder = createClearedFeeder(harnessTarget(h), DEPLOYMENT);
  admin = kafkaClient(`${h.ns.id}-admin`).admin();
  await admin.connect();
});

afterAll(async () => {
  await admin?.disconnect();
  await worker?.close();
  for (const stages of [both, results]) {
    if (stages === undefined) continue;
    await stages.lifecycle.stop('test finished');
    stages.lifecycle.dispose();
  }
  await h?.close();
  if (h !== undefined) {
    await dropGateSubjects(
      (short) => h.topic(short),
      DEPLOYMENT.tools.map((t) => t.name),
    );
  }
});

/** One more execute process in the harness's namespace, consuming `inputs`. */
async function startExecute(inputs: string): Promise<SupervisedStages> {
  const stages = await superviseStages({
    env: gateEnv(h.ns, {
      TOOLGATE_INTEGRITY_KEY: h.gate.config.integrityKey,
      TOOLGATE_EXECUTE_INPUTS: inputs,
      TOOLGATE_INSTANCE_ID: `${h.ns.id}-${inputs}`,
      ...identityEnv('toolgate-execute'),
    }),
    deployment: DEPLOYMENT,
    modules: [execute],
    exit: (code) => {
      if (code !== 0) throw new Error(`the ${inputs} process asked to exit with ${code}`);
    },
    process: { on: () => undefined, off: () => undefined },
  });
  await eventually(30_000, `the ${inputs} process to join`, () => Promise.resolve(stages.ready()));
  return stages;
}

/** Each member of the execute group: how many partitions of which topics it holds. */
async function executeMembers(): Promise<Record<string, number>[]> {
  const { groups } = await admin.describeGroups([`${h.ns.id}.toolgate.execute`]);
  return (groups[0]?.members ?? []).map((m) => {
    const assignment = AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment;
    return Object.fromEntries(Object.entries(assignment ?? {}).map(([t, ids]) => [t, ids.length]));
  });
}

/** Each member's holdings once the group has `count` members with partitions. */
async function settledMembers(count: number): Promise<Record<string, number>[]> {
  let members: Record<string, number>[] = [];
  await eventually(30_000, `${count} members of the execute group with partitions`, async () => {
    members = await executeMembers();
    return members.filter((m) => Object.keys(m).length > 0).length === count;
  });
  return members;
}

describe('the execute stage split in two processes (TOOLGATE_EXECUTE_INPUTS)', () => {
  it('gives each member of the one execute group only partitions of its own topic', async () => {
    const members = await settledMembers(2);
    expect(members).toEqual(
      expect.arrayContaining([{ [h.topic('cleared')]: 6 }, { [h.topic('results')]: 6 }]),
    );
  });

  it('issues the command in one process and ends the call in the other, once', async () => {
    worker.plan('run-split', () => ({ status: 'ok', output: { snippets: ['Net 30.'] } }));
    const ids: ProposalIds = { proposalId: 'p-split', runId: 'run-split' };
    const envelope = await feeder.feed(alice, openaiChat(ids, 'lookup', { query: 'terms' }));

    const observation = await terminalOf(h, 'p-split');
    expect(observation).toMatchObject({ outcome: 'result', result: { withheld: false } });
    expect((observation['result'] as { content: string }).content).toContain('Net 30.');
    const commands = await everythingUnder(h, 'commands.lookup', keyOf(envelope));
    expect(commands).toHaveLength(1);
    await h.waitFor(
      'audit',
      'the result audit of p-split',
      (r) => r.value['proposalId'] === 'p-split' && r.value['kind'] === 'result',
    );
    const ends = (await everythingUnder(h, 'observations', 'run-split')).filter(
      (r) => r.value['outcome'] !== 'pending_confirmation',
    );
    expect(ends).toHaveLength(1);
  });

  it('ends a silent tool with an unknown outcome from the process that settles results', async () => {
    worker.plan('run-split-late', () => undefined);
    const ids: ProposalIds = { proposalId: 'p-split-late', runId: 'run-split-late' };
    await feeder.feed(alice, openaiChat(ids, 'publish_note', { note_id: 'note_1' }));
    await worker.waitFor('run-split-late');
    expect(await terminalOf(h, 'p-split-late')).toMatchObject({
      outcome: 'unknown_outcome',
      code: 'timeout_outcome_unknown',
    });
  });

  it('ends each call once while a process that does both runs beside the two halves', async () => {
    both = await startExecute('both');
    const members = await settledMembers(3);
    const held = (topic: string) => members.reduce((sum, m) => sum + (m[h.topic(topic)] ?? 0), 0);
    expect([held('cleared'), held('results')]).toEqual([6, 6]);

    worker.plan('run-mixed', () => ({ status: 'ok', output: { snippets: ['Net 45.'] } }));
    const sent = ['p-mixed-1', 'p-mixed-2', 'p-mixed-3', 'p-mixed-4'];
    for (const proposalId of sent) {
      const ids: ProposalIds = { proposalId, runId: 'run-mixed', callId: `call-${proposalId}` };
      await feeder.feed(alice, openaiChat(ids, 'lookup', { query: proposalId }));
    }
    for (const proposalId of sent) {
      expect(await terminalOf(h, proposalId)).toMatchObject({ outcome: 'result' });
    }
    const ends = (await everythingUnder(h, 'observations', 'run-mixed')).filter(
      (r) => r.value['outcome'] !== 'pending_confirmation',
    );
    expect(ends.map((r) => r.value['proposalId']).sort()).toEqual(sent);
  });

  it('says when no process consumes results any more, and when one does again', async () => {
    const group = `${h.ns.id}.toolgate.execute`;
    const logger = recordingLogger();
    const metrics = createMetrics('execute', { processMetrics: false });
    let checks = 0;
    const watch = execute.watchResultsConsumed({
      bus: {
        groupTopics: (groupId) => {
          checks += 1;
          return h.gate.runtime.busFor('execute').groupTopics(groupId);
        },
      },
      logger,
      metrics,
      groupId: group,
      resultsTopic: h.topic('results'),
      intervalMs: 100,
    });
    const said = (message: RegExp) => logger.lines.filter((l) => message.test(l.message));
    const gauge = async () =>
      (await metrics.registry.getSingleMetric('toolgate_topic_consumed')?.get())?.values[0]?.value;
    try {
      expect(await h.gate.runtime.busFor('execute').groupTopics(group)).toEqual(
        [h.topic('cleared'), h.topic('results')].sort(),
      );
      await eventually(10_000, 'two checks', () => Promise.resolve(checks >= 2));
      expect(logger.lines).toEqual([]);
      expect(await gauge()).toBe(1);

      for (const stages of [both, results]) await stages?.lifecycle.stop('test: results unread');
      await eventually(30_000, 'the error', () =>
        Promise.resolve(said(/no execute process consumes tool results/).length > 0),
      );
      expect(await h.gate.runtime.busFor('execute').groupTopics(group)).toEqual([
        h.topic('cleared'),
      ]);
      const seenAt = checks;
      await eventually(10_000, 'two more checks', () => Promise.resolve(checks >= seenAt + 2));
      expect(said(/no execute process/)).toHaveLength(1);
      expect(said(/no execute process/)[0]).toMatchObject({ level: 'error' });
      expect(await gauge()).toBe(0);

      results = await startExecute('results');
      await eventually(30_000, 'the all-clear', () =>
        Promise.resolve(said(/consumes tool results again/).length > 0),
      );
      expect(said(/no execute process/)).toHaveLength(1);
      expect(await gauge()).toBe(1);
    } finally {
      await watch.stop();
    }
  });
});
