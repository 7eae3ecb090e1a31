/**
 * The CLI's administration of a secured cluster, against the live stack, in a namespace of its
 * own (topic and group prefix): as the stack's administrator, `topics create` makes the
 * deployment's topics and `acls apply` exactly its bindings, once; a tenant's agent may do
 * neither; `tail` and `stats` read as the least principal the table lets read each topic.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aclTable,
  createBus,
  exampleAclScope,
  kafkaIdentityFromEnv,
  kafkaSecurityOf,
  SILENT_LOGGER,
  topicsFor,
  type AclBinding,
  type Bus,
} from '@toolgate/platform';
import { loadStackConfig } from '../../infra/stack-config.js';
import { stackEnv } from '../../infra/stack-env.js';
import { bindingKey, planAcls } from '../../packages/cli/src/acl-plan.js';
import { runCaptured, type CliRun } from '../../packages/cli/src/run-cli.test-support.js';
import { eventually, within } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { kafkaClient, stackAddresses } from '../support/stack.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONFIG = 'examples/billing/toolgate.config.ts';

const ns = testNamespace('cli-security');
const prefix = `${ns.id}.`;
const scope = exampleAclScope(prefix, prefix);
const table = aclTable(scope);
const topics = topicsFor(scope.tools, scope.tenants).map((t) => `${prefix}${t.name}`);

/** A binding no table holds: a stale grant of the example's agent, under the namespace. */
const stale: AclBinding = {
  principal: 'agent-acme',
  resourceType: 'TOPIC',
  resourceName: `${prefix}toolgate.retired`,
  patternType: 'LITERAL',
  operation: 'READ',
};
/** The same grant in another installation (another prefix): never this one's to prune. */
const foreign: AclBinding = { ...stale, resourceName: `${ns.id}-other.toolgate.retired` };

let admin: Bus;

/** The environment of a principal of the stack, in the namespace. */
function envOf(principal: string): Record<string, string> {
  const env = stackEnv(loadStackConfig(process.env, repoRoot), principal);
  if (env === undefined) throw new Error(`the stack has no principal ${principal}`);
  return {
    ...env,
    TOOLGATE_KAFKA_BROKERS: stackAddresses().kafkaBrokers.join(','),
    TOOLGATE_SCHEMA_REGISTRY_URL: stackAddresses().schemaRegistryUrl,
    TOOLGATE_TOPIC_PREFIX: prefix,
    TOOLGATE_GROUP_PREFIX: prefix,
  };
}

const cli = (args: string[], principal = 'admin') => runCaptured(args, { env: envOf(principal) });

/** The bindings the cluster holds on resources of the namespace (and the foreign one). */
async function namespaceBindings(): Promise<string[]> {
  const all = await admin.describeAcls();
  return all
    .filter((b) => b.resourceName.startsWith(prefix))
    .map(bindingKey)
    .sort();
}

async function produce(topic: string, value: unknown): Promise<void> {
  const producer = admin.producer();
  await producer.connect();
  try {
    await producer.send([{ topic, key: 'run-1', value: Buffer.from(JSON.stringify(value)) }]);
  } finally {
    await producer.disconnect();
  }
}

beforeAll(() => {
  admin = createBus({
    brokers: stackAddresses().kafkaBrokers,
    clientId: 'cli-security-test',
    logger: SILENT_LOGGER,
    security: kafkaSecurityOf(kafkaIdentityFromEnv(envOf('admin'))),
  });
});

afterAll(async () => {
  await admin?.deleteAcls([...table, stale, foreign]);
  await admin?.close();
  await dropNamespace(ns, { kafka: kafkaClient('cli-security-cleanup') });
});

describe('toolgate topics create', () => {
  it("creates the deployment's topics in the namespace as the administrator, once", async () => {
    const first = await cli(['topics', 'create', '--config', CONFIG]);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(
      first.out
        .split('\n')
        .filter((l) => l.startsWith('created '))
        .sort(),
    ).toEqual(
      [
        ...topics.map((t) => `created ${t}`),
        `created ${topics.length} topics, 0 were already there`,
      ].sort(),
    );
    expect(await admin.unseenTopics(topics)).toEqual([]);
    const again = await cli(['topics', 'create', '--config', CONFIG]);
    expect(again).toEqual({
      code: 0,
      err: '',
      out: `created 0 topics, ${topics.length} were already there\n`,
    });
  });
});

describe('toolgate acls apply', () => {
  it("creates exactly the table's bindings for the namespace, then none", async () => {
    expect(await namespaceBindings()).toEqual([]);
    const first = await cli(['acls', 'apply', '--config', CONFIG]);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toMatch(
      new RegExp(`\ncreated ${table.length} bindings, 0 were already there\n$`),
    );
    const wanted = table.map(bindingKey).sort();
    await eventually(
      30_000,
      "the table's bindings to be described",
      async () => {
        const held = await namespaceBindings();
        return held.length === wanted.length && held.every((k, i) => k === wanted[i]);
      },
      200,
    );
    const again = await cli(['acls', 'apply', '--config', CONFIG]);
    expect(again).toEqual({
      code: 0,
      err: '',
      out: `created 0 bindings, ${table.length} were already there\n`,
    });
  });

  it('is refused to a principal that is not an administrator, in one line, exit 4', async () => {
    const agent = await cli(['acls', 'apply', '--config', CONFIG], 'agent-acme');
    expect(agent).toMatchObject({ code: 4, out: '' });
    expect(agent.err).toMatch(
      /^toolgate acls: acls apply: Kafka refused user agent-acme \(CLUSTER_AUTHORIZATION_FAILED\): [^\n]+\n$/,
    );
    const topicsAsAgent = await cli(['topics', 'create', '--config', CONFIG], 'agent-acme');
    expect(topicsAsAgent).toMatchObject({ code: 4, out: '' });
    expect(topicsAsAgent.err).toMatch(
      /^toolgate topics: topics create: Kafka refused user agent-acme /,
    );
  });

  it("prunes its principals' stale bindings under its prefixes, and nothing else", async () => {
    await admin.createAcls([stale, foreign]);
    await eventually(
      30_000,
      'the stale bindings to be described',
      async () => {
        const held = new Set((await admin.describeAcls('agent-acme')).map(bindingKey));
        return held.has(bindingKey(stale)) && held.has(bindingKey(foreign));
      },
      200,
    );
    // What prune would delete, checked before it runs: the stack's own bindings are not in it.
    expect(planAcls(table, await admin.describeAcls(), scope).extra).toEqual([stale]);
    const pruned = await cli(['acls', 'apply', '--prune', '--config', CONFIG]);
    expect(pruned).toEqual({
      code: 0,
      err: '',
      out:
        `deleted User:agent-acme READ TOPIC ${stale.resourceName}\n` +
        `created 0 bindings, ${table.length} were already there; deleted 1 the table does not contain\n`,
    });
    await eventually(
      30_000,
      'the stale binding to be gone',
      async () => {
        const held = new Set((await admin.describeAcls('agent-acme')).map(bindingKey));
        return !held.has(bindingKey(stale)) && held.has(bindingKey(foreign));
      },
      200,
    );
  });
});

describe('reading as the principal the table grants', () => {
  it("tails a tenant's observations as its agent, and no other tenant's", async () => {
    const topic = `${prefix}toolgate.observations.acme`;
    await produce(topic, { runId: 'run-1', note: 'for acme' });
    const args = ['tail', 'observations.acme', '--since', '1h', '--max', '1'];
    let run: CliRun = { code: -1, out: '', err: '' };
    // ACLs reach the brokers a moment after they are created: a refusal is asked again.
    await eventually(
      60_000,
      'tail as agent-acme to be allowed',
      async () => {
        run = await within(30_000, 'tail as agent-acme', cli(args, 'agent-acme'));
        return run.code !== 4;
      },
      500,
    );
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(run.out)).toMatchObject({ key: 'run-1', value: { note: 'for acme' } });
    const other = await within(
      30_000,
      'tail of globex as agent-acme',
      cli(['tail', 'observations.globex', '--since', '1h', '--max', '1'], 'agent-acme'),
    );
    expect(other).toMatchObject({ code: 4, out: '' });
    expect(other.err).toMatch(/Kafka refused this identity \(\w+_AUTHORIZATION_FAILED\)/);
  });

  it('counts the audit topic as analytics', async () => {
    await produce(`${prefix}toolgate.audit`, {
      eventId: 'e1',
      kind: 'rejected',
      stage: 'schema',
      code: 'unknown_tool',
      disposition: 'deny',
      outcome: null,
      tool: 'search',
      tenant: 'acme',
    });
    const run = await within(
      30_000,
      'stats as toolgate-analytics',
      cli(['stats', '--since', '1h', '--json'], 'toolgate-analytics'),
    );
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(run.out)).toMatchObject({
      topic: `${prefix}toolgate.audit`,
      read: 1,
      rows: [{ values: { stage: 'schema', code: 'unknown_tool' }, count: 1 }],
    });
  });
});
