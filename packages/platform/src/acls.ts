/**
 * Who may do what on Kafka, declared once beside the topic catalogue (DESIGN §2, "every topic has
 * owners"): one row per principal × resource × operation, each with why it is needed. `stack:up`
 * and `toolgate acls apply` create exactly these bindings under a default-deny authorizer,
 * `toolgate acls print` prints them for an operator, `docs/security.md` is rendered from them and
 * `docker-compose.yml` carries the same list; tests keep all of them in sync with this file.
 */
import { gateTopics, stageGroup } from './gate-topics.js';
import { EXAMPLE_TENANTS, EXAMPLE_TOOLS, TOPIC_NAMES } from './topics.js';

/** Kafka resource types a binding may name. */
export type AclResourceType = 'TOPIC' | 'GROUP' | 'TRANSACTIONAL_ID' | 'CLUSTER';

/** How a row's resource name matches: exactly, or as a prefix. */
export type AclPatternType = 'LITERAL' | 'PREFIXED';

/**
 * Operations a binding may grant. The gate's table uses READ and WRITE only (each implies
 * DESCRIBE); the others serve infrastructure such as the local stack's schema registry.
 */
export type AclOperation = 'READ' | 'WRITE' | 'DESCRIBE' | 'ALL' | 'CREATE' | 'DESCRIBE_CONFIGS';

/** One ALLOW binding as Kafka holds it: `principal` may `operation` on the resource, any host. */
export interface AclBinding {
  /** The Kafka user name (the binding's principal is `User:<principal>`). */
  readonly principal: string;
  readonly resourceType: AclResourceType;
  readonly resourceName: string;
  readonly patternType: AclPatternType;
  readonly operation: AclOperation;
}

/** One row of the table: a binding and why the principal needs it. */
export interface AclRow extends AclBinding {
  /** Why the principal needs it, in a few words. */
  readonly why: string;
}

/** The gate's four stages, each with its own principal `toolgate-<stage>`. */
export const GATE_STAGE_NAMES = ['validate', 'authorize', 'confirm', 'execute'] as const;

/** One of {@link GATE_STAGE_NAMES}. */
export type GateStageName = (typeof GATE_STAGE_NAMES)[number];

/** A tool worker as a deployment declares it: its principal, consumer-group name and tools. */
export interface WorkerGrant {
  /** Its Kafka user name, e.g. `worker-billing`. */
  readonly principal: string;
  /** The worker's name (TOOLGATE_WORKER_NAME): its group is `<groupPrefix>toolgate.worker.<name>`. */
  readonly name: string;
  /** The tools whose command topics it reads. */
  readonly tools: readonly string[];
}

/** What the table is drawn for: one installation's prefixes, tools, tenants and workers. */
export interface AclScope {
  /** TOOLGATE_TOPIC_PREFIX (may be empty). */
  readonly topicPrefix: string;
  /** TOOLGATE_GROUP_PREFIX (may be empty): consumer groups and transactional ids. */
  readonly groupPrefix: string;
  /** Every tool of the deployment. */
  readonly tools: readonly string[];
  /** Every tenant of the deployment: each has an observations topic and an agent principal. */
  readonly tenants: readonly string[];
  readonly workers: readonly WorkerGrant[];
}

/** The principal of a gate stage. */
export function stagePrincipal(stage: GateStageName): string {
  return `toolgate-${stage}`;
}

/** The principal of a tenant's agents. */
export function agentPrincipal(tenant: string): string {
  return `agent-${tenant}`;
}

/**
 * The principal of analytics and SIEM export: reads the audit topic, writes and reads its own output
 * (final window counts and alerts), nothing else.
 */
export const ANALYTICS_PRINCIPAL = 'toolgate-analytics';

/** The principal of approval UIs and bots (the console): confirmation requests in, approvals out. */
export const CONSOLE_PRINCIPAL = 'toolgate-console';

/** The consumer-group prefix of one tenant's agent clients: `<prefix>toolgate.agent.<tenant>.`. */
export function agentGroupPrefix(groupPrefix: string, tenant: string): string {
  return `${groupPrefix}toolgate.agent.${tenant}.`;
}

/** The consumer group of analytics: `<prefix>toolgate.analytics`, and any group under it. */
export function analyticsGroupPrefix(groupPrefix: string): string {
  return `${groupPrefix}toolgate.analytics`;
}

/** The consumer group of approval UIs: `<prefix>toolgate.console`, and any group under it. */
export function consoleGroupPrefix(groupPrefix: string): string {
  return `${groupPrefix}toolgate.console`;
}

/** The observations topic of one tenant: `<prefix>toolgate.observations.<tenant>`. */
export function observationsTopicOf(topicPrefix: string, tenant: string): string {
  return `${topicPrefix}${TOPIC_NAMES.observations}.${tenant}`;
}

/** What one stage reads and writes: its inputs, its outputs beyond observations and audit. */
const STAGE_TOPICS: Readonly<
  Record<GateStageName, { readonly reads: readonly string[]; readonly writes: readonly string[] }>
> = {
  validate: { reads: ['proposals'], writes: ['validated', 'quarantine'] },
  authorize: { reads: ['validated'], writes: ['authorized'] },
  confirm: {
    reads: ['authorized', 'approvals'],
    writes: ['cleared', 'confirmations', 'approvals', 'proposals', 'quarantine'],
  },
  execute: { reads: ['cleared', 'results'], writes: ['quarantine'] },
};

const WHY_READ: Readonly<Record<string, string>> = {
  proposals: 'its input: agents’ proposals, with their session tokens',
  validated: 'its input',
  authorized: 'its input',
  approvals: 'approvals, with the approvers’ session tokens',
  cleared: 'its input',
  results: 'tool results, to end calls',
};

const WHY_WRITE: Readonly<Record<string, string>> = {
  validated: 'its output, tagged',
  authorized: 'its output, tagged',
  cleared: 'its output, tagged',
  confirmations: 'confirmation requests for approvers',
  approvals: 'approvals made through its HTTP approval API',
  proposals: 'changed calls from its HTTP approval API (amend), with the changer’s session token',
  quarantine: 'undecodable input, kept for operators',
};

/**
 * The rows of one installation. Every stage reads its inputs and writes its outputs, every
 * tenant's observations topic and the audit topic, in its own consumer group and transactional
 * ids; agents write proposals (and confirm, for a call a person changed on approval) and read
 * their tenant's observations; workers read their tools' commands and write results; only execute
 * writes commands; analytics reads audit; the console reads confirmation requests and writes
 * approvals. Nothing else is allowed.
 */
export function aclTable(scope: AclScope): readonly AclRow[] {
  const topics = gateTopics(scope.topicPrefix);
  const rows: AclRow[] = [];
  const topic = (principal: string, name: string, operation: AclOperation, why: string) =>
    rows.push({
      principal,
      resourceType: 'TOPIC',
      resourceName: name,
      patternType: 'LITERAL',
      operation,
      why,
    });
  const group = (principal: string, name: string, pattern: AclPatternType, why: string) =>
    rows.push({
      principal,
      resourceType: 'GROUP',
      resourceName: name,
      patternType: pattern,
      operation: 'READ',
      why,
    });
  const transactions = (principal: string, groupId: string) =>
    rows.push({
      principal,
      resourceType: 'TRANSACTIONAL_ID',
      resourceName: `${groupId}.`,
      patternType: 'PREFIXED',
      operation: 'WRITE',
      why: 'its transactions (`<group>.<instance id>`): output and offsets commit together',
    });
  for (const stage of GATE_STAGE_NAMES) {
    const principal = stagePrincipal(stage);
    const { reads, writes } = STAGE_TOPICS[stage];
    for (const name of reads) {
      topic(principal, topics[name as keyof typeof TOPIC_NAMES], 'READ', WHY_READ[name] ?? 'input');
    }
    for (const name of writes) {
      const why = WHY_WRITE[name] ?? 'output';
      topic(principal, topics[name as keyof typeof TOPIC_NAMES], 'WRITE', why);
    }
    if (stage === 'execute') {
      for (const tool of scope.tools) {
        topic(
          principal,
          topics.command(tool),
          'WRITE',
          `commands for ${tool}: only execute issues them`,
        );
      }
    }
    for (const tenant of scope.tenants) {
      const name = observationsTopicOf(scope.topicPrefix, tenant);
      topic(principal, name, 'WRITE', `observations for ${tenant}'s agents`);
    }
    topic(principal, topics.audit, 'WRITE', 'an audit event for every decision');
    const groupId = stageGroup(scope.groupPrefix, stage);
    group(principal, groupId, 'LITERAL', 'its consumer group');
    transactions(principal, groupId);
  }
  for (const tenant of scope.tenants) {
    const principal = agentPrincipal(tenant);
    topic(principal, topics.proposals, 'WRITE', 'proposals, with its users’ session tokens');
    topic(
      principal,
      observationsTopicOf(scope.topicPrefix, tenant),
      'READ',
      'its tenant’s observations only',
    );
    group(
      principal,
      agentGroupPrefix(scope.groupPrefix, tenant),
      'PREFIXED',
      'its clients’ consumer groups',
    );
  }
  for (const worker of scope.workers) {
    for (const tool of worker.tools) {
      topic(worker.principal, topics.command(tool), 'READ', `commands for ${tool}, its tool`);
    }
    topic(worker.principal, topics.results, 'WRITE', 'its tools’ results');
    const groupId = `${scope.groupPrefix}toolgate.worker.${worker.name}`;
    group(worker.principal, groupId, 'LITERAL', 'its consumer group');
    transactions(worker.principal, groupId);
  }
  topic(ANALYTICS_PRINCIPAL, topics.audit, 'READ', 'the audit trail, read only');
  for (const name of [topics.refusalStats, topics.alerts]) {
    topic(ANALYTICS_PRINCIPAL, name, 'WRITE', 'its output: final window counts and alerts');
    topic(
      ANALYTICS_PRINCIPAL,
      name,
      'READ',
      'its output, read back by `toolgate stats` and `alerts`',
    );
  }
  topic(ANALYTICS_PRINCIPAL, topics.windowState, 'WRITE', 'its open windows, at each offset');
  topic(ANALYTICS_PRINCIPAL, topics.windowState, 'READ', 'its open windows, after a restart');
  group(
    ANALYTICS_PRINCIPAL,
    analyticsGroupPrefix(scope.groupPrefix),
    'PREFIXED',
    'its consumer groups',
  );
  transactions(ANALYTICS_PRINCIPAL, analyticsGroupPrefix(scope.groupPrefix));
  topic(CONSOLE_PRINCIPAL, topics.confirmations, 'READ', 'confirmation requests to show approvers');
  topic(
    CONSOLE_PRINCIPAL,
    topics.approvals,
    'WRITE',
    'approvals, with the approvers’ session tokens',
  );
  group(
    CONSOLE_PRINCIPAL,
    consoleGroupPrefix(scope.groupPrefix),
    'PREFIXED',
    'its consumer groups',
  );
  return rows;
}

/** Every principal the table names, in the order it names them. */
export function principalsOf(rows: readonly AclRow[]): readonly string[] {
  return [...new Set(rows.map((r) => r.principal))];
}

/** The topics a principal may read or write (its rows on topics), by full name. */
export function topicsOfPrincipal(rows: readonly AclRow[], principal: string): readonly string[] {
  return [
    ...new Set(
      rows
        .filter((r) => r.principal === principal && r.resourceType === 'TOPIC')
        .map((r) => r.resourceName),
    ),
  ];
}

/** One row as `kafka-acls.sh` would describe it, for printing. */
export function describeAclRow(row: AclRow): string {
  const pattern = row.patternType === 'PREFIXED' ? ' (prefixed)' : '';
  return `User:${row.principal} ${row.operation} ${row.resourceType} ${row.resourceName}${pattern}`;
}

/** The example's one tool worker: principal `worker-billing`, group name `billing`, every tool. */
export const EXAMPLE_WORKER: WorkerGrant = {
  principal: 'worker-billing',
  name: 'billing',
  tools: EXAMPLE_TOOLS,
};

/** The scope of the example deployment under the given prefixes (default none). */
export function exampleAclScope(topicPrefix = '', groupPrefix = ''): AclScope {
  return {
    topicPrefix,
    groupPrefix,
    tools: EXAMPLE_TOOLS,
    tenants: EXAMPLE_TENANTS,
    workers: [EXAMPLE_WORKER],
  };
}
