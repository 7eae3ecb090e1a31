/**
 * What the relay may do on the secured stack. Its principal, `bench-relay`, has no ACLs of its
 * own: for each run the benchmark grants it, as the stack's admin, the topics under the run's
 * relay prefix and the consumer groups and transactional ids under the relay's group prefix, and
 * removes them again at the end. Its tools' keys derive from a command key made for the run, as
 * the gate's derive from execute's. Pure.
 */
import type { AclBinding } from '@toolgate/platform';
import { deriveToolKey } from '@toolgate/shared';
import { BENCH_RELAY_PRINCIPAL } from '../../infra/stack-principals.js';

/** The relay's prefixes: of its topics, and of its consumer groups and transactional ids. */
export interface RelayPrefixes {
  readonly topicPrefix: string;
  readonly groupPrefix: string;
}

/** TOOLGATE_WORKER_NAME of the relay's echo worker: its group is `<prefix>toolgate.worker.echo`. */
export const RELAY_WORKER_NAME = 'echo';

/**
 * The ALLOW bindings of `bench-relay` for one run: PREFIXED topic READ and WRITE on the relay's
 * topic prefix, PREFIXED group READ and transactional-id WRITE on its group prefix. Throws a
 * TypeError for an empty prefix, which would grant every topic or group of the cluster.
 */
export function relayBindings(prefixes: RelayPrefixes): readonly AclBinding[] {
  const { topicPrefix, groupPrefix } = prefixes;
  if (topicPrefix === '' || groupPrefix === '')
    throw new TypeError("the relay's prefixes must not be empty: the grant would cover everything");
  const prefixed = (
    resourceType: AclBinding['resourceType'],
    resourceName: string,
    operation: AclBinding['operation'],
  ): AclBinding => ({
    principal: BENCH_RELAY_PRINCIPAL,
    resourceType,
    resourceName,
    patternType: 'PREFIXED',
    operation,
  });
  return [
    prefixed('TOPIC', topicPrefix, 'READ'),
    prefixed('TOPIC', topicPrefix, 'WRITE'),
    prefixed('GROUP', groupPrefix, 'READ'),
    prefixed('TRANSACTIONAL_ID', groupPrefix, 'WRITE'),
  ];
}

/** TOOLGATE_TOOL_KEYS entries (`<tool>:<key>`) of `tools` under `commandKey`. */
export function toolKeyEntries(commandKey: string, tools: readonly string[]): string {
  return tools.map((tool) => `${tool}:${deriveToolKey(commandKey, tool)}`).join(',');
}
