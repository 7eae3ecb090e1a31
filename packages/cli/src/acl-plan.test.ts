import { aclTable, exampleAclScope, type AclBinding } from '@toolgate/platform';
import { describe, expect, it } from 'vitest';
import { aclScript, bindingKey, kafkaAclsCommand, planAcls, shellWord } from './acl-plan.js';

const scope = exampleAclScope('t1.', 'g1.');
const table = aclTable(scope);

const binding = (
  principal: string,
  resourceType: AclBinding['resourceType'],
  resourceName: string,
  operation: AclBinding['operation'] = 'READ',
): AclBinding => ({ principal, resourceType, resourceName, patternType: 'LITERAL', operation });

describe('planAcls', () => {
  it('creates every row on an empty cluster and none once all are there', () => {
    expect(planAcls(table, [], scope)).toEqual({ missing: table, present: 0, extra: [] });
    const applied = planAcls(table, table, scope);
    expect(applied).toEqual({ missing: [], present: table.length, extra: [] });
  });

  it('creates only the missing rows, counting the ones already held', () => {
    const [first, second, ...rest] = table;
    const plan = planAcls(table, rest, scope);
    expect(plan.missing).toEqual([first, second]);
    expect(plan.present).toBe(table.length - 2);
  });

  it("calls extra only the table principals' bindings under the prefixes that it lacks", () => {
    const stale = binding('agent-acme', 'TOPIC', 't1.toolgate.observations.globex');
    const staleGroup = binding('worker-billing', 'GROUP', 'g1.toolgate.worker.old');
    const otherInstallation = binding('agent-acme', 'TOPIC', 't2.toolgate.observations.globex');
    const otherGroups = binding('toolgate-validate', 'GROUP', 'g2.toolgate.validate');
    const otherPrincipal = binding('toolgate-registry', 'TOPIC', 't1.kafkasql-journal', 'ALL');
    const cluster = binding('toolgate-validate', 'CLUSTER', 'kafka-cluster', 'DESCRIBE');
    const existing = [
      ...table,
      stale,
      staleGroup,
      otherInstallation,
      otherGroups,
      otherPrincipal,
      cluster,
    ];
    expect(planAcls(table, existing, scope).extra).toEqual([stale, staleGroup]);
    const unprefixed = exampleAclScope();
    const whole = planAcls(aclTable(unprefixed), [cluster, otherPrincipal], unprefixed);
    expect(whole.extra).toEqual([cluster]);
  });

  it('tells bindings apart by every field', () => {
    const row = binding('a', 'TOPIC', 'x');
    const keys = new Set(
      [
        row,
        { ...row, principal: 'b' },
        { ...row, resourceType: 'GROUP' as const },
        { ...row, resourceName: 'y' },
        { ...row, patternType: 'PREFIXED' as const },
        { ...row, operation: 'WRITE' as const },
      ].map(bindingKey),
    );
    expect(keys.size).toBe(6);
  });
});

describe('kafkaAclsCommand', () => {
  it('writes the kafka-acls.sh --add command of a binding', () => {
    expect(kafkaAclsCommand(binding('agent-acme', 'TOPIC', 'toolgate.observations.acme'))).toBe(
      'kafka-acls.sh --bootstrap-server "$BOOTSTRAP" --command-config "$ADMIN_CONFIG" --add --allow-principal User:agent-acme --operation Read --topic toolgate.observations.acme --resource-pattern-type literal',
    );
    const transactions: AclBinding = {
      principal: 'toolgate-execute',
      resourceType: 'TRANSACTIONAL_ID',
      resourceName: 'toolgate.execute.',
      patternType: 'PREFIXED',
      operation: 'WRITE',
    };
    expect(kafkaAclsCommand(transactions)).toMatch(
      / --allow-principal User:toolgate-execute --operation Write --transactional-id toolgate\.execute\. --resource-pattern-type prefixed$/,
    );
    expect(kafkaAclsCommand(binding('a', 'GROUP', 'g'))).toContain(' --group g ');
    expect(kafkaAclsCommand(binding('a', 'CLUSTER', 'kafka-cluster', 'DESCRIBE_CONFIGS'))).toMatch(
      / --operation DescribeConfigs --cluster --resource-pattern-type literal$/,
    );
  });

  it('quotes a name the shell would otherwise split or expand', () => {
    expect(shellWord('toolgate.commands.search')).toBe('toolgate.commands.search');
    expect(shellWord('User:agent-acme')).toBe('User:agent-acme');
    expect(shellWord("it's $HOME")).toBe("'it'\\''s $HOME'");
    expect(shellWord('')).toBe("''");
  });
});

describe('aclScript', () => {
  it('is a script with a header, then per row its why and its command', () => {
    const script = aclScript(table, { deployment: 'billing', scope });
    const lines = script.split('\n');
    expect(lines[0]).toBe('#!/bin/sh');
    expect(lines[1]).toBe(
      `# Kafka ACLs of deployment "billing": ${table.length} bindings, topic prefix "t1.", group prefix "g1.".`,
    );
    expect(lines).toContain('set -eu');
    const commands = lines.filter((l) => l.startsWith('kafka-acls.sh '));
    expect(commands).toEqual(table.map(kafkaAclsCommand));
    for (const row of table) {
      const at = lines.indexOf(kafkaAclsCommand(row));
      expect(lines[at - 1]).toBe(`# ${row.principal}: ${row.why}`);
    }
    expect(script.endsWith('\n')).toBe(true);
  });
});
