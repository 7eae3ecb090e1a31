/**
 * How a consumer group's partitions are shared when its members subscribe to different topics:
 * each partition goes to one member subscribed to its topic, the one holding the fewest partitions
 * so far. kafkajs's round-robin assigner gives every member a share of every topic the leader
 * subscribes to, which is right only when all members subscribe alike; execute's two halves
 * (TOOLGATE_EXECUTE_INPUTS) share one group with different topics, so that each result is handled
 * by exactly one member, whichever mix of `both`, `cleared` and `results` is running. Pure: the
 * bus adapter decodes the members' metadata and encodes the answer.
 */

/** A member of the group and the topics it subscribed to. */
export interface SubscribedMember {
  readonly memberId: string;
  readonly topics: readonly string[];
}

/** Partitions per topic, for each member that gets any (members given none are left out). */
export type GroupAssignment = ReadonlyMap<string, Readonly<Record<string, readonly number[]>>>;

/**
 * Assigns `partitions` (ids per topic) to `members`: a partition only to a member subscribed to
 * its topic, each to the member with the fewest so far (ties to the smallest member id), topics
 * and partitions in order, so every leader computes the same answer. A topic nobody subscribed to
 * is not assigned.
 */
export function assignBySubscription(
  members: readonly SubscribedMember[],
  partitions: ReadonlyMap<string, readonly number[]>,
): GroupAssignment {
  const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
  const held = new Map<string, Record<string, number[]>>();
  const count = new Map<string, number>(sorted.map((m) => [m.memberId, 0]));
  for (const topic of [...partitions.keys()].sort()) {
    const takers = sorted.filter((m) => m.topics.includes(topic));
    for (const partition of [...(partitions.get(topic) ?? [])].sort((a, b) => a - b)) {
      const taker = fewest(takers, count);
      if (taker === undefined) break;
      count.set(taker, (count.get(taker) ?? 0) + 1);
      const own = held.get(taker) ?? {};
      (own[topic] ??= []).push(partition);
      held.set(taker, own);
    }
  }
  return held;
}

function fewest(
  takers: readonly SubscribedMember[],
  count: ReadonlyMap<string, number>,
): string | undefined {
  let best: string | undefined;
  for (const { memberId } of takers) {
    if (best === undefined || (count.get(memberId) ?? 0) < (count.get(best) ?? 0)) best = memberId;
  }
  return best;
}
