/**
 * Two instances of one stage (authorize) in one namespace, as two processes with the same
 * configuration and their own TOOLGATE_INSTANCE_ID would run: their `/readyz` answers name each
 * instance and the partitions it holds, disjoint and covering the input topic; one stops and the
 * other's answer lists them all; and a process started with an instance id already in use takes
 * the stage over, its predecessor fenced and stopped with a line that says why. Against the real
 * stack; the instances run in-process, each with its own lifecycle, as separate processes would.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as authorize from '@toolgate/authorize';
import * as confirm from '@toolgate/confirm';
import {
  APPROVAL_PORT_NAME,
  stageGroup,
  superviseStages,
  type StageModule,
  type SupervisedStages,
} from '@toolgate/platform';
import deployment from '../support/deployment/index.js';
import { eventually } from '../support/deadline.js';
import { dropGateNamespace, gateEnv, stageIdentities } from '../support/gate-harness.js';
import { provisionNamespace, testNamespace } from '../support/namespace.js';
import { kafkaClient } from '../support/stack.js';

const ns = testNamespace('instances');
const INPUT = `${ns.id}.toolgate.validated`;
/** The input topic's partitions, as `toolgate topics create` makes them. */
const PARTITIONS = [0, 1, 2, 3, 4, 5];
const noSignals = { on: () => undefined, off: () => undefined };

/** One instance: its supervised stage, its log lines and the exit codes it asked for. */
interface Instance {
  readonly gate: SupervisedStages;
  readonly lines: Record<string, unknown>[];
  readonly exits: number[];
}

/** What `/readyz` answers. */
interface Readyz {
  readonly status: string;
  readonly instanceId?: string;
  readonly groupId?: string;
  readonly partitions?: Readonly<Record<string, readonly number[]>>;
}

const running: Instance[] = [];

beforeAll(async () => {
  await provisionNamespace(ns, {
    tools: deployment.tools.map((t) => t.name),
    tenants: deployment.tenants,
  });
});

afterAll(async () => {
  for (const { gate } of running) {
    await gate.lifecycle.stop('test finished');
    gate.lifecycle.dispose();
  }
  await dropGateNamespace(ns, kafkaClient(`${ns.id}-cleanup`));
}, 60_000);

/**
 * Starts a stage (authorize unless told) as instance `instanceId`, on free ports unless `env`
 * names them.
 */
async function startInstance(
  instanceId: string,
  module: StageModule = authorize,
  env: Readonly<Record<string, string>> = {},
): Promise<Instance> {
  const lines: Record<string, unknown>[] = [];
  const exits: number[] = [];
  const gate = await superviseStages({
    env: gateEnv(ns, { TOOLGATE_INSTANCE_ID: instanceId, TOOLGATE_LOG_LEVEL: 'info', ...env }),
    deployment,
    modules: [module],
    identities: stageIdentities(),
    logDestination: {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    },
    exit: (code) => void exits.push(code),
    process: noSignals,
  });
  const instance = { gate, lines, exits };
  running.push(instance);
  return instance;
}

async function readyz(
  instance: Instance,
  port = instance.gate.ports['authorize'],
): Promise<Readyz> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return (await res.json()) as Readyz;
}

/** The input partitions an instance's `/readyz` says it holds. */
async function held(instance: Instance): Promise<readonly number[]> {
  return (await readyz(instance)).partitions?.[INPUT] ?? [];
}

/** True when the instances' answers hold disjoint, non-empty shares that cover the input. */
async function sharedOut(instances: readonly Instance[]): Promise<boolean> {
  const shares = await Promise.all(instances.map(held));
  const all = shares.flat().sort((a, b) => a - b);
  return shares.every((s) => s.length > 0) && JSON.stringify(all) === JSON.stringify(PARTITIONS);
}

/** Writes one undecodable record to every input partition: whoever holds it must commit past it. */
async function writeToEveryPartition(): Promise<void> {
  const producer = kafkaClient(`${ns.id}-writer`).producer();
  await producer.connect();
  try {
    await producer.send({
      topic: INPUT,
      messages: PARTITIONS.map((partition) => ({ partition, key: null, value: 'not an envelope' })),
    });
  } finally {
    await producer.disconnect();
  }
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The group's committed offset in every input partition. */
async function committedOffsets(groupId: string): Promise<readonly string[]> {
  const admin = kafkaClient(`${ns.id}-offsets`).admin();
  await admin.connect();
  try {
    const [topic] = await admin.fetchOffsets({ groupId, topics: [INPUT] });
    return (topic?.partitions ?? []).sort((a, b) => a.partition - b.partition).map((p) => p.offset);
  } finally {
    await admin.disconnect();
  }
}

describe('two instances of the authorize stage', () => {
  it('share the partitions out and say so, hand them over on a stop, and fence an instance whose id is taken over', async () => {
    const a = await startInstance(`${ns.id}-a`);
    const b = await startInstance(`${ns.id}-b`);
    const groupId = stageGroup(a.gate.config.groupPrefix, 'authorize');

    await eventually(120_000, 'both instances to hold a share of the input partitions', () =>
      sharedOut([a, b]),
    );
    const [fromA, fromB] = await Promise.all([readyz(a), readyz(b)]);
    expect(fromA).toMatchObject({ status: 'ready', instanceId: `${ns.id}-a`, groupId });
    expect(fromB).toMatchObject({ status: 'ready', instanceId: `${ns.id}-b`, groupId });
    expect(Object.keys(fromA.partitions ?? {})).toEqual([INPUT]);
    const shareOfA = fromA.partitions?.[INPUT] ?? [];
    const shareOfB = fromB.partitions?.[INPUT] ?? [];
    expect(shareOfA.filter((p) => shareOfB.includes(p))).toEqual([]);
    expect([...shareOfA, ...shareOfB].sort((x, y) => x - y)).toEqual(PARTITIONS);

    await b.gate.lifecycle.stop('instance b stops');
    expect(b.gate.stages[0]?.membership().partitions).toEqual({});
    await eventually(120_000, 'instance a to hold every input partition', async () => {
      return JSON.stringify(await held(a)) === JSON.stringify(PARTITIONS);
    });

    // A process started with a's id, a still running: it takes the transactional id over.
    const successor = await startInstance(`${ns.id}-a`);
    await eventually(120_000, 'the successor to hold a share', async () => {
      return (await held(successor)).length > 0;
    });
    await writeToEveryPartition();
    await eventually(120_000, 'the fenced predecessor to stop its process', () =>
      Promise.resolve(a.exits.length > 0),
    );
    expect(a.exits).toEqual([1]);
    expect(a.lines).toContainEqual(
      expect.objectContaining({
        level: 'fatal',
        msg: 'fenced: a newer process with the same instance id took over this stage, or this one stalled past its transaction timeout; stopping the process',
      }),
    );
    await eventually(120_000, 'the successor to hold every input partition', async () => {
      return JSON.stringify(await held(successor)) === JSON.stringify(PARTITIONS);
    });
    expect(await readyz(successor)).toMatchObject({ status: 'ready', instanceId: `${ns.id}-a` });
    // Whatever the predecessor could not commit, the successor did: the group is past every record.
    await eventually(120_000, 'the group to commit past the record in every partition', async () =>
      (await committedOffsets(groupId)).every((offset) => offset === '1'),
    );
    expect(successor.exits).toEqual([]);
  }, 600_000);
});

describe('two instances of the confirm stage on one host', () => {
  it('run on ports of their own, each approval API answering, and share both input topics', async () => {
    const [http1, http2, api1, api2] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const portsOf = (http: number, api: number) => ({
      TOOLGATE_HTTP_PORT: String(http),
      TOOLGATE_APPROVAL_PORT: String(api),
    });
    const one = await startInstance(`${ns.id}-c1`, confirm, portsOf(http1, api1));
    const two = await startInstance(`${ns.id}-c2`, confirm, portsOf(http2, api2));
    expect([one.gate.ports['confirm'], one.gate.ports[APPROVAL_PORT_NAME]]).toEqual([http1, api1]);
    expect([two.gate.ports['confirm'], two.gate.ports[APPROVAL_PORT_NAME]]).toEqual([http2, api2]);

    const authorized = `${ns.id}.toolgate.authorized`;
    const approvals = `${ns.id}.toolgate.approvals`;
    const covered = async (topic: string, count: number) => {
      const shares = await Promise.all(
        [one, two].map(
          async (i) => (await readyz(i, i.gate.ports['confirm'])).partitions?.[topic] ?? [],
        ),
      );
      return (
        JSON.stringify(shares.flat().sort((a, b) => a - b)) ===
        JSON.stringify(PARTITIONS.slice(0, count))
      );
    };
    await eventually(
      120_000,
      'the two confirm instances to share authorized and approvals',
      async () => (await covered(authorized, 6)) && (await covered(approvals, 3)),
    );
    // The approval API answers on each instance's own port, and says only whether it is ready.
    for (const api of [api1, api2]) {
      const res = await fetch(`http://127.0.0.1:${api}/readyz`);
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 200,
        body: { status: 'ready' },
      });
    }
  }, 300_000);
});
