/**
 * Which member of which consumer group a process is, and which partitions it holds right now: what
 * its `/healthz` and `/readyz` answers name, so that an operator running several instances of a
 * stage sees how the group shared the partitions out.
 */
import type { Assignment } from './kafka/index.js';

/** One consumer group member's identity and the partitions it holds now. */
export interface GroupMembership {
  /** TOOLGATE_INSTANCE_ID: with the group, it makes the transactional id `<groupId>.<instanceId>`. */
  readonly instanceId: string;
  readonly groupId: string;
  /**
   * Partition numbers held now, ascending, by topic (topics in name order); empty before the
   * first group join and once the member left the group or stopped.
   */
  readonly partitions: Assignment;
}

/** `assignment` as {@link GroupMembership.partitions} gives it: topics and partitions sorted, no empty topic. */
export function sortedAssignment(assignment: Assignment): Assignment {
  return Object.fromEntries(
    Object.entries(assignment)
      .filter(([, partitions]) => partitions.length > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([topic, partitions]) => [topic, [...partitions].sort((a, b) => a - b)]),
  );
}

/** How many partitions `assignment` holds, over all its topics. */
export function partitionCount(assignment: Assignment): number {
  return Object.values(assignment).reduce((n, partitions) => n + partitions.length, 0);
}
