/**
 * The topic catalogue of DESIGN §2: every topic the gate reads or writes, declared once with its
 * partitions, retention and cleanup policy. `stack:up` creates these idempotently, the Docker
 * Compose file carries the same list, and `docs/topics.md` explains each row; tests keep all three
 * in sync with this file.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Kafka's `cleanup.policy` values the catalogue uses. */
export const CLEANUP_POLICIES = ['delete', 'compact'] as const;

/** How a topic discards old records. */
export type CleanupPolicy = (typeof CLEANUP_POLICIES)[number];

/** Who reads a topic, which decides how long its records may be replayed. */
export const TOPIC_ROLES = {
  /** Read by a gate stage or a tool worker: a replay re-enters the pipeline. */
  pipeline: 'pipeline',
  /** Read by people and outside systems (agents, UIs, SIEM): a replay changes nothing. */
  record: 'record',
} as const;

/** Who reads a topic; see {@link TOPIC_ROLES}. */
export type TopicRole = (typeof TOPIC_ROLES)[keyof typeof TOPIC_ROLES];

/** One topic as a deployment creates it. Replication is the cluster's business, not the catalogue's. */
export interface TopicSpec {
  /** Full topic name, e.g. `toolgate.proposals`. */
  readonly name: string;
  /** Partition count; the upper bound on consumers of one group. */
  readonly partitions: number;
  /** `retention.ms`: age after which closed segments are deleted; -1 keeps them forever. */
  readonly retentionMs: number;
  /** `segment.ms`: how often the active segment rolls, so retention can act on it. */
  readonly segmentMs: number;
  /** `cleanup.policy`. */
  readonly cleanupPolicy: CleanupPolicy;
  /** Whether a replay of this topic re-enters the pipeline. */
  readonly role: TopicRole;
  /** What the record key is (DESIGN §2), or `none`. */
  readonly key: string;
  /**
   * `message.timestamp.type`: `LogAppendTime` where the gate judges a record by when it reached
   * the broker (the proposals topic: call rates are counted in the second the broker appended a
   * proposal, a time the writer cannot set, so a backlog read late is not refused for arriving
   * late); `CreateTime` elsewhere.
   */
  readonly timestampType: TimestampType;
}

/** Kafka's `message.timestamp.type` values. */
export type TimestampType = 'CreateTime' | 'LogAppendTime';

/**
 * The fixed topic names of DESIGN §2, by short name. `observations` is the stem of each tenant's
 * own topic (`toolgate.observations.<tenant>`, see {@link observationsTopic}), not a topic itself.
 */
export const TOPIC_NAMES = {
  proposals: 'toolgate.proposals',
  validated: 'toolgate.validated',
  authorized: 'toolgate.authorized',
  cleared: 'toolgate.cleared',
  confirmations: 'toolgate.confirmations',
  approvals: 'toolgate.approvals',
  results: 'toolgate.results',
  observations: 'toolgate.observations',
  audit: 'toolgate.audit',
  quarantine: 'toolgate.quarantine',
  refusalStats: 'toolgate.refusal-stats',
  alerts: 'toolgate.alerts',
  windowState: 'toolgate.analytics-state',
} as const;

/** One fixed topic's short name. */
export type TopicShortName = keyof typeof TOPIC_NAMES;

/** The example tools whose command topics the local stack creates. */
export const EXAMPLE_TOOLS = [
  'search',
  'calculate',
  'final',
  'approve_invoice',
  'send_email',
  'refund_payment',
] as const;

/** Prefix of every command topic: `toolgate.commands.<tool>`. */
export const COMMAND_TOPIC_PREFIX = 'toolgate.commands.';

/** Kafka's hard limit on a topic name's length. */
export const MAX_TOPIC_NAME_LENGTH = 249;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

// Pipeline topics keep a day: long enough to replay an incident, short enough that an idempotency
// record (Redis) outlives every record a consumer-group reset could deliver again (DESIGN §5).
const pipeline = (name: string, partitions: number, key: string): TopicSpec => ({
  name,
  partitions,
  retentionMs: DAY_MS,
  segmentMs: HOUR_MS,
  cleanupPolicy: 'delete',
  role: 'pipeline',
  key,
  timestampType: 'CreateTime',
});

// The topics that carry bearer tokens (session tokens in headers: proposals, approvals) keep them
// as briefly as the gate can use them: an hour, in ten-minute segments, so a token stays readable
// at most 70 minutes (docs/topics.md says why that is enough and what a longer outage costs).
const bearer = (name: string, partitions: number, key: string): TopicSpec => ({
  ...pipeline(name, partitions, key),
  retentionMs: HOUR_MS,
  segmentMs: 10 * 60_000,
});

const FIXED_TOPICS: readonly TopicSpec[] = [
  { ...bearer(TOPIC_NAMES.proposals, 6, 'runId'), timestampType: 'LogAppendTime' },
  pipeline(TOPIC_NAMES.validated, 6, 'runId'),
  pipeline(TOPIC_NAMES.authorized, 6, 'runId'),
  pipeline(TOPIC_NAMES.cleared, 6, 'runId'),
  pipeline(TOPIC_NAMES.confirmations, 3, 'tenant'),
  bearer(TOPIC_NAMES.approvals, 3, 'confirmationId'),
  pipeline(TOPIC_NAMES.results, 6, 'runId'),
  // Keyed by tenant, so compaction would keep one event per tenant: the audit trail is deleted by
  // age only, after a year and a month (an annual review plus its follow-up).
  {
    name: TOPIC_NAMES.audit,
    partitions: 6,
    retentionMs: 400 * DAY_MS,
    segmentMs: 7 * DAY_MS,
    cleanupPolicy: 'delete',
    role: 'record',
    key: 'tenant',
    timestampType: 'CreateTime',
  },
  // Records have no key, and a compacted topic refuses keyless records: kept by age instead.
  {
    name: TOPIC_NAMES.quarantine,
    partitions: 1,
    retentionMs: 30 * DAY_MS,
    segmentMs: DAY_MS,
    cleanupPolicy: 'delete',
    role: 'record',
    key: 'none',
    timestampType: 'CreateTime',
  },
  // Compacted: a window's final counts are keyed by window and dimensions, so the latest record of
  // a key is its answer; a window written twice (a retried transaction) keeps one. Kept 40 days.
  analyticsRecord(TOPIC_NAMES.refusalStats, 'window + dimensions'),
  // Compacted by rule and subject: the latest alert of each, kept 40 days.
  analyticsRecord(TOPIC_NAMES.alerts, 'rule + subject'),
  // The analytics service's changelog: the open windows of each audit partition, written in the
  // same transaction as that partition's offset; compacted, so the latest state of each is kept.
  analyticsRecord(TOPIC_NAMES.windowState, 'audit partition'),
];

function analyticsRecord(name: string, key: string): TopicSpec {
  return {
    name,
    partitions: 6,
    retentionMs: 40 * DAY_MS,
    segmentMs: DAY_MS,
    cleanupPolicy: 'compact',
    role: 'record',
    key,
    timestampType: 'CreateTime',
  };
}

/**
 * The command topic's name for a tool: `toolgate.commands.<tool>`. Throws a `TypeError` for a
 * tool name that is not 1–64 characters of `[A-Za-z0-9_-]` (the names providers accept), because
 * such a name cannot come from a valid tool registry.
 */
export function commandTopicName(tool: string): string {
  if (!TOOL_NAME.test(tool)) {
    throw new TypeError(`tool name ${JSON.stringify(tool)} cannot name a command topic`);
  }
  return `${COMMAND_TOPIC_PREFIX}${tool}`;
}

/** The command topic of one tool: keyed by idempotency key, replayable, kept a day. */
export function commandTopic(tool: string): TopicSpec {
  return pipeline(commandTopicName(tool), 3, 'idempotencyKey');
}

/**
 * The observations topic of one tenant: `toolgate.observations.<tenant>`, read by that tenant's
 * agents only, keyed by run, kept a week. Throws a `TypeError` for a tenant that cannot name a
 * topic (1–64 characters of `[A-Za-z0-9_-]`).
 */
export function observationsTopic(tenant: string): TopicSpec {
  if (!TOOL_NAME.test(tenant)) {
    throw new TypeError(`tenant ${JSON.stringify(tenant)} cannot name an observations topic`);
  }
  return {
    name: `${TOPIC_NAMES.observations}.${tenant}`,
    partitions: 6,
    retentionMs: 7 * DAY_MS,
    segmentMs: DAY_MS,
    cleanupPolicy: 'delete',
    role: 'record',
    key: 'runId',
    timestampType: 'CreateTime',
  };
}

/**
 * Every topic a deployment with these tools and tenants needs: the fixed ones, one command topic
 * per tool, one observations topic per tenant.
 */
export function topicsFor(
  tools: readonly string[],
  tenants: readonly string[] = [],
): readonly TopicSpec[] {
  return [...FIXED_TOPICS, ...tools.map(commandTopic), ...tenants.map(observationsTopic)];
}

/** The example deployment's tenants (examples/billing). */
export const EXAMPLE_TENANTS = ['acme', 'globex'] as const;

/** The topics of the local stack: the fixed ones and the example's command and observation topics. */
export const DECLARED_TOPICS: readonly TopicSpec[] = topicsFor(EXAMPLE_TOOLS, EXAMPLE_TENANTS);

/**
 * A topic name inside a namespace: `<namespace>.<name>`. Namespaces keep test files (and tenants of
 * a shared cluster) apart. Throws a `TypeError` for a namespace that is not 1–64 characters of
 * `[A-Za-z0-9_-]` starting with a letter or digit, or when the result exceeds Kafka's length limit.
 */
export function namespacedTopicName(namespace: string, name: string): string {
  if (!NAMESPACE.test(namespace)) {
    throw new TypeError(`namespace ${JSON.stringify(namespace)} is not a valid topic prefix`);
  }
  const full = `${namespace}.${name}`;
  if (full.length > MAX_TOPIC_NAME_LENGTH) {
    throw new TypeError(`topic name ${full} is longer than ${MAX_TOPIC_NAME_LENGTH} characters`);
  }
  return full;
}

/** The same topics, renamed into a namespace (see {@link namespacedTopicName}). */
export function withNamespace(
  namespace: string,
  topics: readonly TopicSpec[],
): readonly TopicSpec[] {
  return topics.map((topic) => ({ ...topic, name: namespacedTopicName(namespace, topic.name) }));
}

/** The topic-level configs to create a topic with, as Kafka names them. */
export function topicConfigEntries(
  topic: TopicSpec,
): readonly { readonly name: string; readonly value: string }[] {
  return [
    { name: 'cleanup.policy', value: topic.cleanupPolicy },
    { name: 'retention.ms', value: String(topic.retentionMs) },
    { name: 'segment.ms', value: String(topic.segmentMs) },
    { name: 'message.timestamp.type', value: topic.timestampType },
  ];
}

/**
 * The longest a record of a pipeline topic can stay readable, in milliseconds: retention plus one
 * segment, because retention only deletes closed segments. A consumer-group reset can deliver a
 * record this old again, so idempotency records must be kept longer than this.
 */
export function replayHorizonMs(topics: readonly TopicSpec[]): number {
  return Math.max(
    0,
    ...topics.filter((t) => t.role === 'pipeline').map((t) => t.retentionMs + t.segmentMs),
  );
}
