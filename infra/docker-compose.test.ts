import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { aclTable, DECLARED_TOPICS, exampleAclScope } from '@toolgate/platform';
import { afterAll, describe, expect, it } from 'vitest';
import { serverProperties } from './kafka.js';
import { aclFile, GATE_REDIS_RULES, REDIS_WORKER_USER, workerRedisRules } from './redis.js';
import { registryJvmOptions, registryKafkaProperties } from './registry.js';
import { APICURIO_VERSION, DEFAULT_PORTS, KAFKA_VERSION, loadStackConfig } from './stack-config.js';
import { REGISTRY_BINDINGS, stackPrincipals } from './stack-principals.js';

// docker-compose.yml cannot run on machines without a Docker engine (CI's included): these tests
// are how it stays the same stack as infra/.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compose = readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
// infra/'s renderers make the stack's passwords on first use: here in a folder of this test's own,
// not in the repository's .stack/.
const stackDir = mkdtempSync(path.join(tmpdir(), 'toolgate-compose-'));
const config = loadStackConfig({ TOOLGATE_STACK_DIR: stackDir }, repoRoot);
afterAll(() => rmSync(stackDir, { recursive: true, force: true }));

/** The lines of the here-document `marker` (`<<'MARKER'` or `<<MARKER`), trimmed. */
function hereDocument(marker: string): string[] {
  const pattern = new RegExp(`<<'?${marker}'?\\n([\\s\\S]*?)\\n\\s*${marker}\\n`);
  const body = pattern.exec(compose)?.[1] ?? '';
  return body
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * `PREFIX_FOO_BAR: value` entries of the Compose file, by property name as the apache/kafka image
 * (and Quarkus) derive it: lower case, `_` is `.`, `___` is `-`, `__` is `_`.
 */
function composeSettings(prefix: string): Map<string, string> {
  const entries = [
    ...compose.matchAll(new RegExp(`^\\s+${prefix}_([A-Z0-9_]+): '?([^'\\n]+)'?$`, 'gm')),
  ];
  return new Map(
    entries.map(([, name = '', value = '']) => [
      name.toLowerCase().replaceAll('_', '.').replaceAll('...', '-').replaceAll('..', '_'),
      value.trim(),
    ]),
  );
}

/** `name=value` lines as pairs, split at the first `=`. */
function properties(text: string): [string, string][] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)];
    });
}

/**
 * A JAAS configuration with its secrets masked: locally they are the stack's random passwords,
 * in the Compose file `${VAR:?…}` interpolations, so only the rest can be compared.
 */
const maskJaas = (value: string) => value.replace(/\b(password|user_\w+)="[^"]*"/g, '$1="***"');

/** The variable a principal's password comes from: `PASSWORD_<SYSTEM>_<PRINCIPAL>`. */
const passwordVariable = (system: 'KAFKA' | 'REDIS', principal: string) =>
  `PASSWORD_${system}_${principal.replaceAll('-', '_').toUpperCase()}`;

describe('docker-compose.yml', () => {
  it('creates exactly the declared topics, with their partitions, retention, segments, policy and timestamp type', () => {
    const declared = DECLARED_TOPICS.map((t) =>
      [t.name, t.partitions, t.retentionMs, t.segmentMs, t.cleanupPolicy, t.timestampType].join(
        ' ',
      ),
    );
    expect(hereDocument('TOPICS')).toEqual(declared);
  });

  it('runs the Kafka, Apicurio Registry and Redis versions infra/ runs', () => {
    const images = [...compose.matchAll(/^\s+image: (\S+)$/gm)].map(([, image]) => image);
    expect(images).toEqual([
      `apache/kafka:${KAFKA_VERSION}`,
      `apache/kafka:${KAFKA_VERSION}`,
      `apicurio/apicurio-registry:${APICURIO_VERSION}`,
      'redis:7',
    ]);
  });

  it('publishes the same loopback ports, and only those', () => {
    const published = [...compose.matchAll(/^\s+- '(\S+:\d+:\d+)'$/gm)].map(([, p]) => p);
    expect(published).toEqual([
      `127.0.0.1:${DEFAULT_PORTS.kafka}:9092`,
      `127.0.0.1:${DEFAULT_PORTS.registry}:8080`,
      `127.0.0.1:${DEFAULT_PORTS.redis}:6379`,
    ]);
  });

  it('gives the broker every setting of the local server.properties that is not about addresses', () => {
    const addressing =
      /^(listeners|advertised\.listeners|controller\.quorum\.voters|log\.dirs|inter\.broker\.listener\.name|listener\.security\.protocol\.map)$/;
    const passwords = { admin: 'admin-secret', controller: 'controller-secret' };
    const local = properties(serverProperties(config, passwords)).filter(
      ([name]) => !addressing.test(name),
    );
    const settings = composeSettings('KAFKA');
    // The JAAS settings carry passwords, which differ by design: compared with those masked.
    for (const [name, value] of local) {
      const composed = settings.get(name);
      expect(composed && maskJaas(composed), name).toBe(maskJaas(value));
    }
  });

  it('authenticates every listener and denies whatever no ACL allows', () => {
    const settings = composeSettings('KAFKA');
    const protocols = (settings.get('listener.security.protocol.map') ?? '')
      .split(',')
      .map((entry) => entry.split(':')[1]);
    expect(protocols).toEqual(['SASL_PLAINTEXT', 'SASL_PLAINTEXT', 'SASL_PLAINTEXT']);
    expect(settings.get('listeners')?.split(',')).toHaveLength(protocols.length);
    expect(settings.get('authorizer.class.name')).toBe(
      'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    );
    expect(settings.get('allow.everyone.if.no.acl.found')).toBe('false');
    expect(settings.get('super.users')).toBe('User:admin;User:controller');
    // The client listener the other containers use logs in as admin, like the host's.
    expect(settings.get('listener.name.internal.scram-sha-512.sasl.jaas.config')).toBe(
      settings.get('listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config'),
    );
  });

  it('grants exactly the ACL table and the registry’s rows', () => {
    const rows = [...aclTable(exampleAclScope()), ...REGISTRY_BINDINGS];
    const expected = rows.map((r) =>
      [r.principal, r.resourceType, r.resourceName, r.patternType, r.operation].join(' '),
    );
    expect(hereDocument('ACLS')).toEqual(expected);
  });

  it('names only resources the setup script turns into a kafka-acls.sh option with a name', () => {
    // `--cluster` takes no name: a CLUSTER row would need its own branch in the script.
    const rows = [...aclTable(exampleAclScope()), ...REGISTRY_BINDINGS];
    const kinds = new Set(rows.map((r) => r.resourceType));
    expect([...kinds].every((k) => ['TOPIC', 'GROUP', 'TRANSACTIONAL_ID'].includes(k))).toBe(true);
  });

  it('makes a SCRAM user for every principal of the stack, each with its own password', () => {
    const formatted = [...compose.matchAll(/\[name=([\w-]+),password=\$\$(\w+)\]/g)];
    expect(formatted.map(([, name]) => name)).toEqual(['admin']);
    expect(formatted[0]?.[2]).toBe(passwordVariable('KAFKA', 'admin'));
    const users = ['admin', ...hereDocument('USERS')];
    expect(users).toEqual(stackPrincipals());
    for (const user of users) {
      const variable = passwordVariable('KAFKA', user);
      expect(compose, user).toContain(`      ${variable}: \${${variable}:?`);
    }
  });

  it('makes the Redis users infra/redis.ts makes, the default user off', () => {
    const masked = (line: string) => line.replace(/ >\S+/, ' >***');
    const lines = hereDocument('ACL');
    expect(lines.map(masked)).toEqual(aclFile(config).split('\n').filter(Boolean).map(masked));
    expect(lines[0]).toBe('user default off');
    const rules = (user: string) =>
      lines
        .find((line) => line.startsWith(`user ${user} `))
        ?.split(' ')
        .slice(4);
    expect(rules('toolgate-gate')).toEqual([...GATE_REDIS_RULES]);
    expect(rules(REDIS_WORKER_USER)).toEqual([...workerRedisRules('toolgate:')]);
    for (const line of lines.slice(1)) {
      const user = line.split(' ')[1] ?? '';
      const variable = passwordVariable('REDIS', user);
      expect(line, user).toContain(` >$$${variable} `);
      expect(compose, user).toContain(`      ${variable}: \${${variable}:?`);
    }
  });

  it('holds no password itself: each is a variable the user provides', () => {
    const secret = /\b(?:password|user_\w+)="?(\$\$\w+|\$\{\w+:\?[^}]*\}|[^"\]\s]*)/g;
    const values = [...compose.matchAll(secret)].map(([, value]) => value);
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) expect(value).toMatch(/^\$(\$\w+|\$\{!\w+\}|\{\w+:\?[^}]+\})$/);
  });

  it('stores schemas in Kafka, as the local registry does', () => {
    const options = registryJvmOptions(config);
    expect(options).toContain('-Dapicurio.storage.kind=kafkasql');
    expect(compose).toMatch(/APICURIO_STORAGE_KIND: kafkasql/);
    const poll = options.find((o) => o.startsWith('-Dapicurio.kafkasql.consumer.poll.timeout='));
    expect(compose).toContain(`APICURIO_KAFKASQL_CONSUMER_POLL_TIMEOUT: ${poll?.split('=')[1]}`);
  });

  it('connects the registry to Kafka as its own principal, once its ACLs exist', () => {
    const settings = composeSettings('APICURIO_KAFKA_COMMON');
    const local = properties(registryKafkaProperties(config)).map(
      ([name, value]): [string, string] => [name.replace('apicurio.kafka.common.', ''), value],
    );
    expect([...settings.keys()].sort()).toEqual(local.map(([name]) => name).sort());
    for (const [name, value] of local) {
      expect(maskJaas(settings.get(name) ?? ''), name).toBe(maskJaas(value));
    }
    const registry = /^ {2}registry:\n([\s\S]*?)\n\n/m.exec(compose)?.[1] ?? '';
    expect(registry).toMatch(
      /depends_on:\n\s+(#.*\n\s+)?setup:\n\s+condition: service_completed_successfully/,
    );
  });
});
