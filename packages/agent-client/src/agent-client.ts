/**
 * The agent developer's client of the gate: submits proposals to `toolgate.proposals` (keyed by
 * run, with the session token in the `toolgate-session` header) and awaits each one's terminal
 * observation by proposalId, through one observation consumer per client.
 */
import { randomUUID } from 'node:crypto';
import { SILENT_LOGGER, type AdapterLogger } from '@toolgate/platform/adapter-logger';
import { createCodec, type Codec } from '@toolgate/platform/codec';
import { gateTopics, type GateTopics } from '@toolgate/platform/gate-topics';
import { createBus, type Bus, type BusProducer } from '@toolgate/platform/kafka';
import {
  createObservationVerifier,
  hasLoneSurrogate,
  MAX_PROPOSAL_ID_CHARS,
  MESSAGE_SCHEMAS,
  REPLY_TENANT_HEADER,
  SESSION_HEADER,
  type Observation,
  type Proposal,
} from '@toolgate/shared';
import { AGENT_CLIENT_ERRORS, AgentClientError } from './agent-client-error.js';
import { clientSettings, type AgentClientOptions, type ClientSettings } from './client-settings.js';
import { startObservationFeed, type ObservationFeed } from './observation-feed.js';
import {
  createObservationRouter,
  type AwaitOptions,
  type ObservationRouter,
} from './observation-router.js';

/** Options of one submission. */
export interface SubmitOptions {
  /** This submission's session token instead of the client's. */
  readonly session?: string;
}

/** Options of {@link AgentClient.call}: those of the submission and of the wait. */
export interface CallOptions extends SubmitOptions, AwaitOptions {}

/** A connected agent client. */
export interface AgentClient {
  /**
   * Sends `proposal` (any of the five formats of DESIGN §9) with the session token; resolves once
   * Kafka has it. Its observations are kept from now on, so awaiting later misses nothing.
   *
   * @throws AgentClientError `missing_session` when there is no token to send, `client_closed`
   * after {@link AgentClient.close}; a Fault when Kafka or the registry cannot be reached, or
   * (`invalid_message`) when the proposal breaks the proposals schema. Before anything is sent:
   * TypeError without a non-empty `proposalId`, `runId` and `requestId`, RangeError when one is
   * longer than the gate takes or holds a lone surrogate (the gate could not answer under it),
   * or when this client still waits on a proposal under the same `proposalId` (submitted, its
   * answer not yet awaited; one whose send failed may be sent again).
   */
  submit(proposal: Proposal, options?: SubmitOptions): Promise<{ readonly proposalId: string }>;
  /**
   * The terminal observation of `proposalId` (outcome `result`, `rejected`, `expired` or
   * `unknown_outcome`). A `pending_confirmation` goes to `onPending` and waiting continues. The
   * observation of a proposal this client submitted is kept until awaited; that of a proposal
   * submitted elsewhere is seen only if it arrives while this wait is on.
   *
   * @throws ObservationTimeoutError naming the proposal after `timeoutMs` (default 30 s).
   */
  awaitObservation(proposalId: string, options?: AwaitOptions): Promise<Observation>;
  /** {@link AgentClient.submit}, then {@link AgentClient.awaitObservation}. */
  call(proposal: Proposal, options?: CallOptions): Promise<Observation>;
  /**
   * How many records of the observations topic this client dropped because they did not verify as
   * the gate's (no signature, a wrong one, or a key it does not trust): each is also logged, never
   * with its content. A number above zero means something other than the gate writes there.
   */
  droppedObservations(): number;
  /** Rejects every wait with `client_closed`, leaves the group, disconnects. Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects a client as its own Kafka principal: finds the proposals schema the gate registered
 * (it registers nothing), connects a producer, and starts the observation consumer on its
 * tenant's topic (group `<groupPrefix>toolgate.agent.<tenant>.<uuid>`), resolving once it has
 * joined, so that nothing written after this resolves is missed. The topics must exist and the
 * gate must have started once (it registers its schemas).
 *
 * @throws ConfigError naming every bad option; a Fault when Kafka or the registry cannot be
 * reached; AgentClientError `join_timeout`. What was opened is closed again.
 */
export async function createAgentClient(options: AgentClientOptions): Promise<AgentClient> {
  const settings = clientSettings(options);
  const logger = options.logger ?? SILENT_LOGGER;
  const id = randomUUID();
  const bus = createBus({
    brokers: [...settings.brokers],
    clientId: `toolgate-agent-${id}`,
    logger,
    security: settings.kafka,
  });
  const client = new Client(settings, logger, bus, id);
  try {
    await client.open();
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

class Client implements AgentClient {
  private readonly topics: GateTopics;
  private readonly codec: Codec;
  private readonly router: ObservationRouter;
  private readonly producer: BusProducer;
  private feed: ObservationFeed | undefined;
  private closing: Promise<void> | undefined;
  private dropped = 0;

  constructor(
    private readonly settings: ClientSettings,
    private readonly logger: AdapterLogger,
    private readonly bus: Bus,
    private readonly id: string,
  ) {
    this.topics = gateTopics(settings.topicPrefix);
    // The gate registers its subjects with compatibility NONE; a different level here would be
    // refused as a configuration mismatch before the (identical) schema is even compared.
    this.codec = createCodec({ registryUrl: settings.registryUrl, logger, compatibility: 'NONE' });
    this.router = createObservationRouter({ bufferLimit: settings.bufferLimit, logger });
    this.producer = bus.producer();
  }

  async open(): Promise<void> {
    if (!this.settings.plainJson) {
      await this.codec.adopt(this.subject(), MESSAGE_SCHEMAS.proposals);
    }
    await this.producer.connect();
    const { tenant } = this.settings;
    this.feed = await startObservationFeed({
      bus: this.bus,
      codec: this.codec,
      topic: this.topics.observationsOf(tenant),
      groupId: `${this.settings.groupPrefix}toolgate.agent.${tenant}.${this.id}`,
      logger: this.logger,
      joinTimeoutMs: this.settings.joinTimeoutMs,
      verify: createObservationVerifier(this.settings.observationKeys),
      onObservation: (observation) => this.router.deliver(observation),
      onForgery: () => {
        this.dropped += 1;
      },
      onFailure: (cause) => this.router.fail(feedFailed(cause)),
    });
    this.logger.info({ client: this.id, topics: this.topics.proposals }, 'agent client ready');
  }

  async submit(proposal: Proposal, options: SubmitOptions = {}): Promise<{ proposalId: string }> {
    if (this.closing !== undefined) throw closedError();
    const { proposalId, runId, requestId } = proposal;
    // The gate answers under these three ids: a record without one, with one far longer than it
    // takes, or with one that is not well-formed text (a lone surrogate, as cutting an id inside
    // an emoji leaves) is only quarantined, with no answer to wait for. Plain JSON reaches the
    // gate unchecked, so it is said here, before anything is sent.
    if (!isText(proposalId) || !isText(runId) || !isText(requestId)) {
      throw new TypeError('a proposal needs a non-empty proposalId, runId and requestId');
    }
    const ids = { proposalId, runId, requestId };
    const long = idsWhere(ids, (id) => id.length > MAX_PROPOSAL_ID_CHARS);
    if (long !== '')
      throw new RangeError(`${long} longer than ${MAX_PROPOSAL_ID_CHARS} characters`);
    const broken = idsWhere(ids, hasLoneSurrogate);
    if (broken !== '') throw new RangeError(`${broken} not well-formed text (a lone surrogate)`);
    const token = await this.tokenFor(options);
    const value = this.settings.plainJson
      ? Buffer.from(JSON.stringify(proposal), 'utf8')
      : await this.codec.encode(this.subject(), proposal);
    // Tracked before it is sent: its observation may arrive before anyone awaits it. An id still
    // tracked is refused: the gate would answer another call under it with a refusal under the
    // same id (confirmation/proposal_reused), and this proposal's waiter could not tell the two
    // apart.
    if (!this.router.track(proposalId)) {
      throw new RangeError(
        `proposalId ${proposalId} is still waiting for its answer; give each proposal its own id`,
      );
    }
    const headers = { [SESSION_HEADER]: token, [REPLY_TENANT_HEADER]: this.settings.tenant };
    try {
      await this.producer.send([{ topic: this.topics.proposals, key: runId, value, headers }]);
    } catch (error) {
      this.router.sendFailed(proposalId);
      throw error;
    }
    return { proposalId };
  }

  awaitObservation(proposalId: string, options?: AwaitOptions): Promise<Observation> {
    return this.router.wait(proposalId, options);
  }

  async call(proposal: Proposal, options: CallOptions = {}): Promise<Observation> {
    const { proposalId } = await this.submit(proposal, options);
    return this.awaitObservation(proposalId, options);
  }

  droppedObservations(): number {
    return this.dropped;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.router.fail(closedError());
    // Reverse order of opening; a failed step is logged and the rest still close.
    const steps: [string, () => Promise<void> | undefined][] = [
      ['observation consumer', () => this.feed?.stop()],
      ['producer', () => this.producer.disconnect()],
      ['Kafka admin client', () => this.bus.close()],
    ];
    for (const [what, step] of steps) {
      try {
        await step();
      } catch (error) {
        this.logger.warn({ err: error, client: this.id }, `could not close the ${what}`);
      }
    }
  }

  private async tokenFor(options: SubmitOptions): Promise<string> {
    const source = options.session ?? this.settings.session;
    const token: unknown = typeof source === 'function' ? await source() : source;
    if (!isText(token)) {
      throw new AgentClientError(AGENT_CLIENT_ERRORS.missingSession, 'no session token to send');
    }
    return token;
  }

  private subject(): string {
    return `${this.topics.proposals}-value`;
  }
}

/** The names of the ids for which `test` holds, comma-separated; empty when none. */
function idsWhere(ids: Readonly<Record<string, string>>, test: (id: string) => boolean): string {
  return Object.entries(ids)
    .filter(([, id]) => test(id))
    .map(([name]) => name)
    .join(', ');
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function closedError(): AgentClientError {
  return new AgentClientError(AGENT_CLIENT_ERRORS.clientClosed, 'the agent client is closed');
}

function feedFailed(cause: Error): AgentClientError {
  const message = `the observation consumer stopped: ${cause.message}`;
  return new AgentClientError(AGENT_CLIENT_ERRORS.feedFailed, message, { cause });
}
