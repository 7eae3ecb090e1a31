/**
 * Fixtures of the execute stage's tests: cleared envelopes built with the core (as the confirm
 * stage publishes them) and sent tagged in the wire format, so the execute stage can be fed
 * alone; a tool worker that consumes command topics read-committed, dedupes on the idempotency
 * key and answers on `results`; and a barrier that proves the tap has read a partition to its end.
 */
import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { createCodec, SILENT_LOGGER, TOPIC_NAMES, type Codec } from '@toolgate/platform';
import {
  authorizeProposal,
  clearedEnvelope,
  createGate,
  deriveToolKey,
  identityOf,
  INTEGRITY_HEADER,
  integrityTag,
  MESSAGE_SCHEMAS,
  PROOF_HEADER,
  referencesOf,
  toolProof,
  toolOf,
  validateProposal,
  type ClearedEnvelope,
  type Command,
  type Confirmed,
  type Deployment,
  type Principal,
  type Proposal,
  type ToolResult,
} from '@toolgate/shared';
import { TEST_DEPLOYMENT } from './deployment/index.js';
import {
  startGateHarness,
  type GateHarness,
  type HarnessOptions,
  type Tapped,
} from './gate-harness.js';
import type { TestNamespace } from './namespace.js';
import { kafkaClient, stackAddresses, stackGateKeys } from './stack.js';

/** Where cleared envelopes go: a namespace's topics, its integrity key, and a way to send bytes. */
export interface FeedTarget {
  topic(short: string): string;
  readonly integrityKey: string;
  send(
    short: string,
    key: string | null,
    value: Buffer,
    headers: Record<string, string>,
  ): Promise<void>;
}

/** The feed target of a harness. */
export function harnessTarget(h: GateHarness): FeedTarget {
  return {
    topic: (short) => h.topic(short),
    integrityKey: h.gate.config.integrityKey,
    send: (short, key, value, headers) => h.send(short, key, value, headers),
  };
}

/** How {@link ClearedFeeder.send} tags an envelope. */
export interface SendOptions {
  readonly tag?: string | null;
  readonly tagAs?: string;
}

/** Builds cleared envelopes with the core and sends them as the confirm stage would. */
export interface ClearedFeeder {
  /** Validates and authorizes `proposal` for `user` with the core; throws if a rung refuses. */
  build(user: Principal, proposal: Proposal, confirmed?: Confirmed): Promise<ClearedEnvelope>;
  /**
   * Sends `envelope` to `cleared` in the wire format, tagged with the integrity key as for the
   * topic `tagAs` (default `cleared`), unless `tag` is given (a string to send instead, or null
   * for none).
   */
  send(envelope: ClearedEnvelope, options?: SendOptions): Promise<void>;
  /** build, then send; returns the envelope. */
  feed(user: Principal, proposal: Proposal): Promise<ClearedEnvelope>;
}

/** A feeder for `deployment` (objects resolve from an in-memory copy of its seed). */
export function createClearedFeeder(target: FeedTarget, deployment: Deployment): ClearedFeeder {
  const core = createGate(deployment);
  // The gate registered this subject already, with compatibility NONE; asking for the default
  // (BACKWARD) would be refused as a configuration mismatch.
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT_LOGGER,
    compatibility: 'NONE',
  });
  const subject = `${target.topic('cleared')}-value`;
  const registered = codec.register(subject, MESSAGE_SCHEMAS.cleared);
  const build = async (user: Principal, proposal: Proposal, confirmed?: Confirmed) => {
    const v = validateProposal(proposal, user, {
      registry: core.registry,
      limits: { maxBytes: core.ceilings.argumentBytes, maxDepth: core.ceilings.maxDepth },
      repairBudget: core.ceilings.repairAttempts,
    });
    if (!v.ok) throw new Error(`fixture refused at ${v.rejected.stage}/${v.rejected.code}`);
    const tool = toolOf(v.value, core.registry);
    if (!tool.ok) throw new Error(`fixture names an unknown tool ${v.value.tool}`);
    const refs = referencesOf(v.value, tool.value);
    const loaded = await Promise.all(refs.map((r) => core.objects.load(user.tenant, r)));
    const a = authorizeProposal(v.value, tool.value, loaded, {
      registry: core.registry,
      policies: core.policies,
    });
    if (!a.ok) throw new Error(`fixture refused at ${a.rejected.stage}/${a.rejected.code}`);
    return clearedEnvelope(a.value, new Date().toISOString(), confirmed);
  };
  const send = async (envelope: ClearedEnvelope, options: SendOptions = {}) => {
    await registered;
    // Stamped as the confirm stage's outputs stamp every envelope they write.
    const issuedAt = (envelope as { issuedAt?: string }).issuedAt ?? new Date().toISOString();
    const bytes = await codec.encode(subject, { ...envelope, issuedAt });
    const tag =
      options.tag === undefined
        ? integrityTag(target.integrityKey, options.tagAs ?? target.topic('cleared'), bytes)
        : options.tag;
    await target.send(
      'cleared',
      envelope.runId,
      bytes,
      tag === null ? {} : { [INTEGRITY_HEADER]: tag },
    );
  };
  return {
    build,
    send,
    async feed(user, proposal) {
      const envelope = await build(user, proposal);
      await send(envelope);
      return envelope;
    },
  };
}

/** How a tool answers a command. */
export type Reply =
  | { readonly status: 'ok'; readonly output: unknown }
  | {
      readonly status: 'error';
      readonly error: { readonly code: string; readonly message: string };
    };

/** A tool worker for every command topic of a deployment. */
export interface ToolWorker {
  /** Every command delivered to the worker, duplicates included, in delivery order. */
  readonly delivered: readonly Command[];
  /** Keys the worker acted on, once each (its own ledger: it dedupes on the key). */
  readonly executed: ReadonlySet<string>;
  /**
   * How to answer the commands of `runId`: a reply, or undefined to stay silent (answer later
   * with {@link ToolWorker.answer}). Runs without a plan get an echo of their arguments.
   */
  plan(runId: string, reply: (command: Command) => Reply | undefined): void;
  /** Answers `command` now, as plain JSON on `results`. */
  answer(command: Command, reply: Reply): Promise<void>;
  /** Resolves with the delivered commands of `runId` once there are `count`. */
  waitFor(runId: string, count?: number, ms?: number): Promise<Command[]>;
  close(): Promise<void>;
}

/** Starts a worker in namespace `ns` on every command topic of `tools`. */
export async function startToolWorker(
  ns: TestNamespace,
  topic: (short: string) => string,
  tools: readonly string[],
): Promise<ToolWorker> {
  const kafka = kafkaClient(`${ns.id}-worker`);
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT_LOGGER,
  });
  const producer = kafka.producer();
  await producer.connect();
  const delivered: Command[] = [];
  const executed = new Set<string>();
  const plans = new Map<string, (command: Command) => Reply | undefined>();
  const waiters = new Set<() => void>();
  const answer = async (command: Command, reply: Reply) => {
    const result: ToolResult = {
      commandId: command.commandId,
      idempotencyKey: command.idempotencyKey,
      runId: command.context.runId,
      ...reply,
      completedAt: new Date().toISOString(),
    };
    // Proved as a worker of the command's tool proves it, with that tool's key.
    const key = deriveToolKey(stackGateKeys().commandKey, command.tool);
    await sendPlain(producer, topic('results'), command.context.runId, result, key);
  };
  const consumer = kafka.consumer({ groupId: ns.group('worker'), readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({
    topics: tools.map((t) => topic(`commands.${t}`)),
    fromBeginning: true,
  });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const command = await commandOf(codec, message.value);
      if (command === undefined) return;
      delivered.push(command);
      for (const wake of waiters) wake();
      // The ledger: a key already acted on is not acted on again.
      if (executed.has(command.idempotencyKey)) return;
      executed.add(command.idempotencyKey);
      const plan = plans.get(command.context.runId) ?? echo;
      const reply = plan(command);
      if (reply !== undefined) await answer(command, reply);
    },
  });
  return {
    delivered,
    executed,
    plan: (runId, reply) => void plans.set(runId, reply),
    answer,
    waitFor: (runId, count = 1, ms = 30_000) =>
      new Promise((resolve, reject) => {
        const mine = () => delivered.filter((c) => c.context.runId === runId);
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${ms} ms waiting for ${count} command(s) of ${runId}`));
        }, ms);
        const check = () => {
          if (mine().length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(mine());
        };
        waiters.add(check);
        check();
      }),
    async close() {
      await consumer.disconnect();
      await producer.disconnect();
    },
  };
}

const echo = (command: Command): Reply => ({ status: 'ok', output: { echo: command.args } });

/** A command from a command topic; undefined for a barrier sentinel or anything else. */
async function commandOf(codec: Codec, bytes: Buffer | null): Promise<Command | undefined> {
  const decoded = await codec.decode(bytes, { plainJsonAllowed: true });
  if (!('value' in decoded)) return undefined;
  const value = decoded.value as Partial<Command> & { sentinel?: unknown };
  return typeof value.commandId === 'string' && value.sentinel === undefined
    ? (value as Command)
    : undefined;
}

async function sendPlain(
  producer: Producer,
  topic: string,
  key: string,
  value: unknown,
  toolKey?: string,
) {
  const bytes = Buffer.from(JSON.stringify(value));
  const headers = toolKey === undefined ? {} : { [PROOF_HEADER]: toolProof(toolKey, topic, bytes) };
  await producer.send({ topic, messages: [{ key, value: bytes, headers }] });
}

/**
 * `result` as a worker of `tool` writes it to `results`: plain JSON, proved with `tool`'s key (or
 * `provedAs`'s, to forge one), ready for `h.send('results', key, bytes, headers)`.
 */
export function provedResult(
  h: GateHarness,
  tool: string,
  result: ToolResult,
  provedAs: string = tool,
): { readonly bytes: Buffer; readonly headers: Record<string, string> } {
  const bytes = Buffer.from(JSON.stringify(result));
  const key = deriveToolKey(stackGateKeys().commandKey, provedAs);
  return { bytes, headers: { [PROOF_HEADER]: toolProof(key, h.topic('results'), bytes) } };
}

/**
 * Every record the tap read from `short` under `key`, once it has read past a sentinel sent
 * after them under the same key (so to the same partition): read-committed, the tap cannot see
 * the sentinel before every transaction opened earlier on that partition has ended. The sentinel
 * itself (`{sentinel}`) is left out; tool workers built here ignore it.
 */
export async function everythingUnder(
  h: GateHarness,
  short: string,
  key: string,
): Promise<Tapped[]> {
  const sentinel = randomUUID();
  // `observations` is every tenant's topic: a sentinel goes through each of them.
  const topics = short === 'observations' ? h.observationTopics : [short];
  for (const one of topics) await h.send(one, key, { sentinel });
  await h.waitFor(
    short,
    `the sentinel under ${key}`,
    (r) => r.value['sentinel'] === sentinel,
    topics.length,
  );
  return h.seen(short).filter((r) => r.key === key && r.value['sentinel'] === undefined);
}

/** The terminal observation of `proposalId` (anything but pending_confirmation), once tapped. */
export async function terminalOf(
  h: GateHarness,
  proposalId: string,
): Promise<Record<string, unknown>> {
  const [found] = await h.waitFor(
    'observations',
    `the terminal observation of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId && r.value['outcome'] !== 'pending_confirmation',
  );
  return found!.value;
}

/**
 * The idempotency key execute derives for `envelope`: scoped by its tool's side-effect class in the
 * test deployment (a read's key names its proposal).
 */
export function keyOf(envelope: ClearedEnvelope): string {
  const tool = TEST_DEPLOYMENT.tools.find((t) => t.name === envelope.tool);
  return identityOf(envelope, tool?.sideEffect).key;
}

/** A deployment whose tools are those of `deployment`, with some timeouts changed (ms). */
export function withTimeouts(
  deployment: Deployment,
  timeouts: Readonly<Record<string, number>>,
): Deployment {
  return {
    ...deployment,
    tools: deployment.tools.map((t) => {
      const timeoutMs = timeouts[t.name];
      return timeoutMs === undefined ? t : { ...t, timeoutMs };
    }),
  };
}

/**
 * Deletes (soft, then for good) the registry subjects a gate registers in the namespace of
 * `topic`: one per topic and one per tool's command topic. By name, because the registry's
 * subject listing stops at 1000 and a shared registry holds more.
 */
export async function dropGateSubjects(
  topic: (short: string) => string,
  tools: readonly string[],
): Promise<void> {
  const url = stackAddresses().schemaRegistryUrl;
  const shorts = [...Object.keys(TOPIC_NAMES), ...tools.map((t) => `commands.${t}`)];
  for (const short of shorts) {
    const name = encodeURIComponent(`${topic(short)}-value`);
    await fetch(`${url}/subjects/${name}`, { method: 'DELETE' });
    await fetch(`${url}/subjects/${name}?permanent=true`, { method: 'DELETE' });
  }
}

/**
 * A gate harness with the example's tool worker beside it, as the crash and outage tests start
 * them: `options` say which stages run in this process.
 */
export async function startHarnessWithWorker(
  options: HarnessOptions,
): Promise<{ readonly h: GateHarness; readonly worker: ToolWorker }> {
  const h = await startGateHarness(options);
  const worker = await startToolWorker(
    h.ns,
    (short) => h.topic(short),
    TEST_DEPLOYMENT.tools.map((t) => t.name),
  );
  return { h, worker };
}

/**
 * Closes what {@link startHarnessWithWorker} started (either may be missing after a failed start)
 * and drops the namespace's schema subjects.
 */
export async function closeHarnessWithWorker(
  h: GateHarness | undefined,
  worker: ToolWorker | undefined,
): Promise<void> {
  await worker?.close();
  await h?.close();
  if (h === undefined) return;
  await dropGateSubjects(
    (short) => h.topic(short),
    TEST_DEPLOYMENT.tools.map((t) => t.name),
  );
}
