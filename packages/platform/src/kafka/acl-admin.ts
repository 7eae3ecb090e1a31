/**
 * ACL administration: the gate's {@link AclBinding}s as kafkajs's ACL entries and back. Only ALLOW
 * bindings, from any host; creating and deleting them needs an identity that may alter the
 * cluster's ACLs (a super user).
 */
import kafkajs from 'kafkajs';
import type { AclBinding } from '../acls.js';
import type { Bus } from './bus-types.js';
import { attempt } from './attempt.js';
import type { LazyAdmin } from './topic-admin.js';

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;

const RESOURCE_TYPES = {
  TOPIC: AclResourceTypes.TOPIC,
  GROUP: AclResourceTypes.GROUP,
  TRANSACTIONAL_ID: AclResourceTypes.TRANSACTIONAL_ID,
  CLUSTER: AclResourceTypes.CLUSTER,
} as const;
const PATTERN_TYPES = {
  LITERAL: ResourcePatternTypes.LITERAL,
  PREFIXED: ResourcePatternTypes.PREFIXED,
} as const;
const OPERATIONS = {
  ALL: AclOperationTypes.ALL,
  READ: AclOperationTypes.READ,
  WRITE: AclOperationTypes.WRITE,
  CREATE: AclOperationTypes.CREATE,
  DESCRIBE: AclOperationTypes.DESCRIBE,
  DESCRIBE_CONFIGS: AclOperationTypes.DESCRIBE_CONFIGS,
} as const;

function aclEntryOf(b: AclBinding) {
  return {
    resourceType: RESOURCE_TYPES[b.resourceType],
    resourceName: b.resourceName,
    resourcePatternType: PATTERN_TYPES[b.patternType],
    principal: `User:${b.principal}`,
    host: '*',
    operation: OPERATIONS[b.operation],
    permissionType: AclPermissionTypes.ALLOW,
  };
}

function keyOf<T extends Readonly<Record<string, number>>>(table: T, value: number): keyof T {
  const found = Object.entries(table).find(([, v]) => v === value)?.[0];
  if (found === undefined) throw new TypeError(`an ACL with an unknown code ${value}`);
  return found;
}

function bindingOf(
  resource: { resourceType: number; resourceName: string; resourcePatternType: number },
  acl: { principal: string; operation: number },
): AclBinding {
  return {
    principal: acl.principal.replace(/^User:/, ''),
    resourceType: keyOf(RESOURCE_TYPES, resource.resourceType),
    resourceName: resource.resourceName,
    patternType: keyOf(PATTERN_TYPES, resource.resourcePatternType),
    operation: keyOf(OPERATIONS, acl.operation),
  };
}

/** The bus's ACL operations, on `admin`. */
export function aclAdmin(
  admin: LazyAdmin,
): Pick<Bus, 'createAcls' | 'describeAcls' | 'deleteAcls'> {
  return {
    createAcls: (bindings) =>
      attempt('create ACLs', async () => {
        if (bindings.length === 0) return;
        await (await admin.get()).createAcls({ acl: bindings.map(aclEntryOf) });
      }),
    describeAcls: (principal) =>
      attempt('describe ACLs', async () => {
        const { resources } = await (
          await admin.get()
        ).describeAcls({
          resourceType: AclResourceTypes.ANY,
          resourcePatternType: ResourcePatternTypes.ANY,
          ...(principal === undefined ? {} : { principal: `User:${principal}` }),
          host: '*',
          operation: AclOperationTypes.ANY,
          permissionType: AclPermissionTypes.ALLOW,
        });
        return resources.flatMap((r) => r.acls.map((acl) => bindingOf(r, acl)));
      }),
    deleteAcls: (bindings) =>
      attempt('delete ACLs', async () => {
        if (bindings.length === 0) return;
        await (await admin.get()).deleteAcls({ filters: bindings.map(aclEntryOf) });
      }),
  };
}
