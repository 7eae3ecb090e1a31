import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DECLARED_TOPICS } from '@toolgate/platform';
import { describe, expect, it } from 'vitest';
import { serverProperties } from './kafka.js';
import { registryJvmOptions } from './registry.js';
import { APICURIO_VERSION, DEFAULT_PORTS, KAFKA_VERSION, loadStackConfig } from './stack-config.js';

// docker-compose.yml cannot run on machines without a Docker engine (CI's included): these tests
// are how it stays the same stack as infra/.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compose = readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
const config = loadStackConfig({}, repoRoot);

/** The `name partitions retention segment policy` lines of the topics service's here-document. */
function composeTopicLines(): string[] {
  const body = /<<'TOPICS'\n([\s\S]*?)\n\s*TOPICS\n/.exec(compose)?.[1] ?? '';
  return body
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** `KAFKA_FOO_BAR: value` entries of the Compose file, by Kafka property name (`foo.bar`). */
function composeKafkaSettings(): Map<string, string> {
  const entries = [...compose.matchAll(/^\s+KAFKA_([A-Z_]+): '?([^'\n]+)'?$/gm)];
  return new Map(
    entries.map(([, name = '', value = '']) => [
      name.toLowerCase().replaceAll('_', '.'),
      value.trim(),
    ]),
  );
}

describe('docker-compose.yml', () => {
  it('creates exactly the declared topics, with their partitions, retention, segments and policy', () => {
    const declared = DECLARED_TOPICS.map((t) =>
      [t.name, t.partitions, t.retentionMs, t.segmentMs, t.cleanupPolicy].join(' '),
    );
    expect(composeTopicLines()).toEqual(declared);
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

  it('publishes the same loopback ports', () => {
    expect(compose).toContain(`'127.0.0.1:${DEFAULT_PORTS.kafka}:9092'`);
    expect(compose).toContain(`'127.0.0.1:${DEFAULT_PORTS.registry}:8080'`);
    expect(compose).toContain(`'127.0.0.1:${DEFAULT_PORTS.redis}:6379'`);
  });

  it('gives the broker every setting of the local server.properties that is not about addresses', () => {
    const addressing =
      /^(listeners|advertised\.listeners|controller\.quorum\.voters|log\.dirs|inter\.broker\.listener\.name|listener\.security\.protocol\.map)$/;
    const local = serverProperties(config)
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('=', 2) as [string, string])
      .filter(([name]) => !addressing.test(name));
    const settings = composeKafkaSettings();
    for (const [name, value] of local) expect(settings.get(name), name).toBe(value);
  });

  it('stores schemas in Kafka, as the local registry does', () => {
    const options = registryJvmOptions(config);
    expect(options).toContain('-Dapicurio.storage.kind=kafkasql');
    expect(compose).toMatch(/APICURIO_STORAGE_KIND: kafkasql/);
    const poll = options.find((o) => o.startsWith('-Dapicurio.kafkasql.consumer.poll.timeout='));
    expect(compose).toContain(`APICURIO_KAFKASQL_CONSUMER_POLL_TIMEOUT: ${poll?.split('=')[1]}`);
  });
});
