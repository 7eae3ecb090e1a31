/**
 * Who the local stack knows: its super user `admin`, one principal per component of the example
 * deployment (the ACL table of packages/platform/src/acls.ts), the schema registry's own, and the
 * benchmark's baseline relay. Each gets a random password under `.stack/secrets/kafka/`.
 */
import {
  aclTable,
  exampleAclScope,
  principalsOf,
  type AclBinding,
  type AclRow,
} from '@toolgate/platform';

/** The stack's one super user, for its own administration (creating topics, users and ACLs). */
export const STACK_ADMIN = 'admin';

/** The principal Apicurio Registry uses to keep its schemas in Kafka. */
export const REGISTRY_PRINCIPAL = 'toolgate-registry';

/**
 * The benchmark's baseline relay: the same work as the gate without its checks, so it too runs
 * as an authenticated, ACL-checked client (its ACLs are made per run, for its own topics).
 */
export const BENCH_RELAY_PRINCIPAL = 'bench-relay';

/**
 * The registry's bindings: its journal, snapshot and event topics (which it creates at its first
 * start) and its consumer groups (`apicurio-<uuid>`). Nothing of the gate's.
 */
export const REGISTRY_BINDINGS: readonly AclRow[] = [
  ...(['kafkasql-journal', 'kafkasql-snapshots', 'registry-events'] as const).map(
    (name): AclRow => ({
      principal: REGISTRY_PRINCIPAL,
      resourceType: 'TOPIC',
      resourceName: name,
      patternType: 'LITERAL',
      operation: 'ALL',
      why: 'the registry keeps its schemas in this topic',
    }),
  ),
  {
    principal: REGISTRY_PRINCIPAL,
    resourceType: 'GROUP',
    resourceName: 'apicurio-',
    patternType: 'PREFIXED',
    operation: 'READ',
    why: 'the registry reads its journal in groups of its own',
  },
];

/** The bindings `stack:up` creates: the example deployment's table and the registry's. */
export function stackBindings(): readonly AclRow[] {
  return [...aclTable(exampleAclScope()), ...REGISTRY_BINDINGS];
}

/** Every SCRAM user of the stack, the super user first. */
export function stackPrincipals(): readonly string[] {
  return [
    STACK_ADMIN,
    ...principalsOf(aclTable(exampleAclScope())),
    REGISTRY_PRINCIPAL,
    BENCH_RELAY_PRINCIPAL,
  ];
}

/** `bindings` that `existing` does not hold yet. */
export function missingBindings(
  bindings: readonly AclBinding[],
  existing: readonly AclBinding[],
): readonly AclBinding[] {
  const key = (b: AclBinding) =>
    [b.principal, b.resourceType, b.resourceName, b.patternType, b.operation].join('\u0000');
  const held = new Set(existing.map(key));
  return bindings.filter((b) => !held.has(key(b)));
}
