/**
 * The test deployment's people and objects: two tenants, an approver and a viewer in one, an
 * approver in the other, and one object of each kind a test needs. Every object starts at
 * version 1; tools bump it when they change the object.
 */
import type { ResolvedObject } from '@toolgate/shared';

/** The test deployment's users, as their sessions name them. */
export const USERS = {
  /** May call every tool on acme's objects, and approve. */
  alice: { subject: 'alice', tenant: 'acme', roles: ['approver'] },
  /** acme's viewer: read tools only, never approves. */
  bob: { subject: 'bob', tenant: 'acme', roles: ['viewer'] },
  /** An approver of the other tenant: sees nothing of acme's. */
  carol: { subject: 'carol', tenant: 'globex', roles: ['approver'] },
} as const;

/** The objects every test starts with. */
export const SEED_OBJECTS: readonly ResolvedObject[] = [
  ticket('tkt_1', 'acme', 'open', 'normal'),
  ticket('tkt_2', 'acme', 'open', 'urgent'),
  ticket('tkt_3', 'acme', 'closed', 'normal'),
  ticket('tkt_9', 'globex', 'open', 'normal'),
  {
    type: 'Note',
    id: 'note_1',
    tenant: 'acme',
    version: 1,
    attributes: { text: 'The release is on Friday.' },
  },
  {
    type: 'Payment',
    id: 'pay_1',
    tenant: 'acme',
    version: 1,
    attributes: { amount: 5_000, refunded: 0 },
  },
];

function ticket(id: string, tenant: string, status: string, priority: string): ResolvedObject {
  return {
    type: 'Ticket',
    id,
    tenant,
    version: 1,
    attributes: { title: `ticket ${id.slice(4)}`, status, priority },
  };
}

/**
 * What no public message to acme's model or approvers may contain: the other tenant, its people
 * and objects, the roles and the policies' words and ids. See `expectNoLeak`.
 */
export const NEVER_PUBLIC: readonly string[] = [
  'globex',
  'carol',
  'tkt_9',
  'viewer',
  'permit',
  'forbid',
  'principal',
  'approvers-approve',
  'viewers-never',
];
