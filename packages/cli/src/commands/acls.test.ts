import { aclTable, exampleAclScope } from '@toolgate/platform';
import { describe, expect, it } from 'vitest';
import { kafkaAclsCommand } from '../acl-plan.js';
import { runCaptured } from '../run-cli.test-support.js';

const CONFIG = 'examples/billing/toolgate.config.ts';

const cli = (args: string[], env: Record<string, string> = {}) => runCaptured(args, { env });

describe('toolgate acls print', () => {
  it("prints the example deployment's table under the prefixes, one command per row", async () => {
    const env = { TOOLGATE_TOPIC_PREFIX: 'p1.', TOOLGATE_GROUP_PREFIX: 'g1.' };
    const { code, out, err } = await cli(['acls', 'print', '--config', CONFIG], env);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const table = aclTable(exampleAclScope('p1.', 'g1.'));
    const lines = out.split('\n');
    expect(lines.filter((l) => l.startsWith('kafka-acls.sh '))).toEqual(
      table.map(kafkaAclsCommand),
    );
    expect(lines.filter((l) => /^# [a-z][a-z-]*: /.test(l))).toHaveLength(table.length);
    expect(lines[1]).toContain(`deployment "billing": ${table.length} bindings`);
  });

  it('grants each part of the example exactly what it needs, with why', async () => {
    const { out } = await cli(['acls', 'print'], { TOOLGATE_CONFIG: CONFIG });
    const add = '--bootstrap-server "$BOOTSTRAP" --command-config "$ADMIN_CONFIG" --add';
    expect(out).toContain(
      `# agent-acme: its tenant’s observations only\nkafka-acls.sh ${add} --allow-principal User:agent-acme --operation Read --topic toolgate.observations.acme --resource-pattern-type literal\n`,
    );
    expect(out).toContain(
      `kafka-acls.sh ${add} --allow-principal User:toolgate-execute --operation Write --topic toolgate.commands.refund_payment --resource-pattern-type literal\n`,
    );
    expect(out).toContain(
      `kafka-acls.sh ${add} --allow-principal User:worker-billing --operation Write --transactional-id toolgate.worker.billing. --resource-pattern-type prefixed\n`,
    );
    expect(out).toContain(
      `kafka-acls.sh ${add} --allow-principal User:agent-globex --operation Read --group toolgate.agent.globex. --resource-pattern-type prefixed\n`,
    );
    expect(out).not.toMatch(
      /User:agent-acme --operation Read --topic toolgate\.observations\.globex/,
    );
    expect(out).not.toMatch(/User:worker-billing --operation Write --topic toolgate\.commands\./);
  });

  it('needs no Kafka identity: printing connects to nothing', async () => {
    const { code } = await cli(['acls', 'print', '--config', CONFIG], {
      TOOLGATE_KAFKA_BROKERS: '127.0.0.1:1',
    });
    expect(code).toBe(0);
  });
});

describe('toolgate acls, misused', () => {
  it('exits 2 naming the problem, before connecting to anything', async () => {
    expect(await cli(['acls'])).toMatchObject({
      code: 2,
      out: '',
      err: 'toolgate acls: name one action: print or apply\n',
    });
    expect(await cli(['acls', 'print'])).toMatchObject({
      code: 2,
      err: 'toolgate acls: --config (or TOOLGATE_CONFIG) is required\n',
    });
    expect(await cli(['acls', 'print', '--prune', '--config', CONFIG])).toMatchObject({
      code: 2,
      err: 'toolgate acls: --prune goes with apply\n',
    });
    const anonymous = await cli(['acls', 'apply', '--config', CONFIG]);
    expect(anonymous).toMatchObject({ code: 2, out: '' });
    expect(anonymous.err).toContain('TOOLGATE_KAFKA_SASL_MECHANISM is required');
    const badPrefix = await cli(['acls', 'print', '--config', CONFIG], {
      TOOLGATE_TOPIC_PREFIX: 'a b',
    });
    expect(badPrefix).toMatchObject({ code: 2, out: '' });
    expect(badPrefix.err).toContain('TOOLGATE_TOPIC_PREFIX');
  });
});
