/**
 * What `toolgate acls` does with the ACL table: which bindings a cluster lacks, which it holds
 * beyond the table, and the `kafka-acls.sh` commands that would create the table by hand. Pure:
 * the command reads the cluster's bindings and acts on the changes planned here.
 */
import type {
  AclBinding,
  AclOperation,
  AclResourceType,
  AclRow,
  AclScope,
} from '@toolgate/platform';
import { principalsOf } from '@toolgate/platform';

/** What applying a table to a cluster's bindings would change. */
export interface AclPlan {
  /** Rows of the table the cluster does not hold: to create. */
  readonly missing: readonly AclRow[];
  /** How many rows of the table the cluster holds already. */
  readonly present: number;
  /**
   * ALLOW bindings the cluster holds for the table's principals, on resources under the scope's
   * prefixes, that the table does not contain: what `--prune` deletes.
   */
  readonly extra: readonly AclBinding[];
}

/**
 * Compares `table` (drawn for `scope`) with `existing`, the cluster's ALLOW bindings. A binding
 * of one of the table's principals counts as extra only on a resource under the scope's prefixes
 * (topics under the topic prefix, groups and transactional ids under the group prefix), so that
 * pruning one installation leaves another, under other prefixes, alone; with empty prefixes every
 * binding of those principals is the installation's.
 */
export function planAcls(
  table: readonly AclRow[],
  existing: readonly AclBinding[],
  scope: Pick<AclScope, 'topicPrefix' | 'groupPrefix'>,
): AclPlan {
  const held = new Set(existing.map(bindingKey));
  const wanted = new Set(table.map(bindingKey));
  const principals = new Set(principalsOf(table));
  const missing = table.filter((row) => !held.has(bindingKey(row)));
  const extra = existing.filter(
    (b) => principals.has(b.principal) && !wanted.has(bindingKey(b)) && isUnder(b, scope),
  );
  return { missing, present: table.length - missing.length, extra };
}

/** One binding as a comparable string: principal, resource type, name, pattern, operation. */
export function bindingKey(b: AclBinding): string {
  return [b.principal, b.resourceType, b.resourceName, b.patternType, b.operation].join('\u0000');
}

function isUnder(b: AclBinding, scope: Pick<AclScope, 'topicPrefix' | 'groupPrefix'>): boolean {
  switch (b.resourceType) {
    case 'TOPIC':
      return b.resourceName.startsWith(scope.topicPrefix);
    case 'GROUP':
    case 'TRANSACTIONAL_ID':
      return b.resourceName.startsWith(scope.groupPrefix);
    case 'CLUSTER':
      return scope.topicPrefix === '' && scope.groupPrefix === '';
  }
}

/** One binding as an operator reads it: `User:<p> <OPERATION> <TYPE> <name>[ (prefixed)]`. */
export function describeBinding(b: AclBinding): string {
  const pattern = b.patternType === 'PREFIXED' ? ' (prefixed)' : '';
  return `User:${b.principal} ${b.operation} ${b.resourceType} ${b.resourceName}${pattern}`;
}

/** Kafka's own spelling of an operation in `kafka-acls.sh --operation`. */
const OPERATION_NAMES: Readonly<Record<AclOperation, string>> = {
  READ: 'Read',
  WRITE: 'Write',
  DESCRIBE: 'Describe',
  ALL: 'All',
  CREATE: 'Create',
  DESCRIBE_CONFIGS: 'DescribeConfigs',
};

/** The `kafka-acls.sh` option naming a resource of each type. */
const RESOURCE_OPTIONS: Readonly<Record<AclResourceType, string>> = {
  TOPIC: '--topic',
  GROUP: '--group',
  TRANSACTIONAL_ID: '--transactional-id',
  CLUSTER: '--cluster',
};

/**
 * The `kafka-acls.sh --add` command that creates `row`, connecting to `$BOOTSTRAP` with the
 * client properties in `$ADMIN_CONFIG` (an administrator's).
 */
export function kafkaAclsCommand(row: AclBinding): string {
  const resource =
    row.resourceType === 'CLUSTER'
      ? [RESOURCE_OPTIONS.CLUSTER]
      : [RESOURCE_OPTIONS[row.resourceType], shellWord(row.resourceName)];
  return [
    'kafka-acls.sh --bootstrap-server "$BOOTSTRAP" --command-config "$ADMIN_CONFIG" --add',
    `--allow-principal ${shellWord(`User:${row.principal}`)}`,
    `--operation ${OPERATION_NAMES[row.operation]}`,
    ...resource,
    `--resource-pattern-type ${row.patternType.toLowerCase()}`,
  ].join(' ');
}

/**
 * The shell script `toolgate acls print` writes: a header saying what it is for and how to run
 * it, then per row a `# <principal>: <why>` comment and its `kafka-acls.sh --add` command.
 */
export function aclScript(
  rows: readonly AclRow[],
  about: {
    readonly deployment: string;
    readonly scope: Pick<AclScope, 'topicPrefix' | 'groupPrefix'>;
  },
): string {
  const { topicPrefix, groupPrefix } = about.scope;
  const header = [
    '#!/bin/sh',
    `# Kafka ACLs of deployment ${JSON.stringify(about.deployment)}: ${rows.length} bindings, topic prefix ${JSON.stringify(topicPrefix)}, group prefix ${JSON.stringify(groupPrefix)}.`,
    '# Run as a Kafka administrator: BOOTSTRAP names a broker (host:port), ADMIN_CONFIG a client',
    "# properties file with the administrator's SASL and TLS settings.",
    'set -eu',
    ': "${BOOTSTRAP:?host:port of a broker}" "${ADMIN_CONFIG:?the administrator\'s client properties file}"',
  ];
  const body = rows.flatMap((row) => ['', `# ${row.principal}: ${row.why}`, kafkaAclsCommand(row)]);
  return `${[...header, ...body].join('\n')}\n`;
}

/** `word` as one shell word: as it is when it is plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9._:/=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
