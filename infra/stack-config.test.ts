import { describe, expect, it } from 'vitest';
import { addressOf, kafkaReplication, loadStackConfig } from './stack-config.js';
import { StackError, problemIn } from './stack-error.js';

const root = '/repo';

describe('loadStackConfig', () => {
  it('manages every component on loopback by default, under <repo>/.stack', () => {
    const config = loadStackConfig({}, root);
    expect(config.addresses).toEqual({
      kafkaBrokers: ['127.0.0.1:9092'],
      schemaRegistryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
      redisUrl: 'redis://127.0.0.1:6380',
    });
    expect([...config.external]).toEqual([]);
    expect(config.stackDir).toBe('/repo/.stack');
  });

  it('treats a component whose address is given as external', () => {
    const config = loadStackConfig(
      {
        TOOLGATE_KAFKA_BROKERS: 'k1:9092, k2:9092',
        TOOLGATE_SCHEMA_REGISTRY_URL: 'https://registry.example:8443/',
      },
      root,
    );
    expect(config.addresses.kafkaBrokers).toEqual(['k1:9092', 'k2:9092']);
    expect(config.addresses.schemaRegistryUrl).toBe('https://registry.example:8443');
    expect([...config.external].sort()).toEqual(['kafka', 'registry']);
  });

  it('moves the local stack to the ports it is given', () => {
    const config = loadStackConfig(
      { TOOLGATE_STACK_KAFKA_PORT: '19092', TOOLGATE_STACK_REDIS_PORT: '16379' },
      root,
    );
    expect(config.addresses.kafkaBrokers).toEqual(['127.0.0.1:19092']);
    expect(config.addresses.redisUrl).toBe('redis://127.0.0.1:16379');
    expect(config.external.size).toBe(0);
  });

  it('runs a Redis Cluster of six nodes on consecutive ports when TOOLGATE_STACK_REDIS=cluster', () => {
    const config = loadStackConfig(
      { TOOLGATE_STACK_REDIS: 'cluster', TOOLGATE_STACK_REDIS_PORT: '17001' },
      root,
    );
    expect(config.redisCluster).toBe(true);
    expect(config.addresses.redisUrl).toBe(
      'redis://127.0.0.1:17001,127.0.0.1:17002,127.0.0.1:17003,127.0.0.1:17004,127.0.0.1:17005,127.0.0.1:17006',
    );
    expect(config.ports.redisClusterBus).toBe(16380);
    expect(loadStackConfig({}, root).redisCluster).toBe(false);
  });

  it("takes an external cluster's nodes and hides its password", () => {
    const config = loadStackConfig(
      { TOOLGATE_REDIS_URL: 'redis://u:secret@h1:7000,h2:7001' },
      root,
    );
    expect(config.addresses.redisUrl).toBe('redis://u:secret@h1:7000,h2:7001');
    expect(addressOf(config, 'redis')).toBe('redis://u:***@h1:7000,h2:7001');
  });

  it('refuses a Redis mode other than server or cluster, and a malformed cluster URL', () => {
    expect(() => loadStackConfig({ TOOLGATE_STACK_REDIS: 'sentinel' }, root)).toThrow(
      /TOOLGATE_STACK_REDIS=sentinel is neither server nor cluster/,
    );
    expect(() => loadStackConfig({ TOOLGATE_REDIS_URL: 'redis://h1:1,/x/y' }, root)).toThrow(
      /not a redis:\/\/ URL of cluster nodes/,
    );
  });

  it('reports every bad value at once', () => {
    const load = () =>
      loadStackConfig(
        {
          TOOLGATE_STACK_KAFKA_PORT: '99999',
          TOOLGATE_KAFKA_BROKERS: 'no-port',
          TOOLGATE_REDIS_URL: 'http://not-redis',
        },
        root,
      );
    expect(load).toThrow(StackError);
    expect(load).toThrow(
      /TOOLGATE_STACK_KAFKA_PORT=99999.*TOOLGATE_KAFKA_BROKERS.*TOOLGATE_REDIS_URL/,
    );
  });
});

describe('TOOLGATE_STACK_KAFKA_NODES', () => {
  it('runs one node on the Kafka ports by default, replicated once', () => {
    for (const env of [
      {},
      { TOOLGATE_STACK_KAFKA_NODES: '1' },
      { TOOLGATE_STACK_KAFKA_NODES: ' ' },
    ]) {
      const config = loadStackConfig(env, root);
      expect(config.kafkaNodes).toEqual([{ id: 1, port: 9092, controllerPort: 9093 }]);
      expect(config.addresses.kafkaBrokers).toEqual(['127.0.0.1:9092']);
      expect(kafkaReplication(config)).toEqual({ replicationFactor: 1, minInsyncReplicas: 1 });
    }
  });

  it('runs three nodes two ports apart, all of them bootstrap servers, replicated thrice', () => {
    const config = loadStackConfig({ TOOLGATE_STACK_KAFKA_NODES: '3' }, root);
    expect(config.kafkaNodes).toEqual([
      { id: 1, port: 9092, controllerPort: 9093 },
      { id: 2, port: 9094, controllerPort: 9095 },
      { id: 3, port: 9096, controllerPort: 9097 },
    ]);
    expect(config.addresses.kafkaBrokers).toEqual([
      '127.0.0.1:9092',
      '127.0.0.1:9094',
      '127.0.0.1:9096',
    ]);
    expect(kafkaReplication(config)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
  });

  it('counts the nodes from the ports it is given', () => {
    const config = loadStackConfig(
      {
        TOOLGATE_STACK_KAFKA_NODES: '3',
        TOOLGATE_STACK_KAFKA_PORT: '19092',
        TOOLGATE_STACK_KAFKA_CONTROLLER_PORT: '19192',
      },
      root,
    );
    expect(config.kafkaNodes.map((n) => [n.port, n.controllerPort])).toEqual([
      [19092, 19192],
      [19094, 19194],
      [19096, 19196],
    ]);
  });

  it.each(['0', '2', '4', 'three', '-3', '3.5'])(
    'refuses %s nodes, saying which counts run',
    (n) => {
      const load = () => loadStackConfig({ TOOLGATE_STACK_KAFKA_NODES: n }, root);
      expect(load).toThrow(StackError);
      expect(load).toThrow(`TOOLGATE_STACK_KAFKA_NODES=${n} is not a node count the stack runs: 1`);
    },
  );

  it('refuses three nodes of a Kafka the stack does not start', () => {
    expect(() =>
      loadStackConfig({ TOOLGATE_STACK_KAFKA_NODES: '3', TOOLGATE_KAFKA_BROKERS: 'k1:9092' }, root),
    ).toThrow(/sizes the stack's own Kafka, but TOOLGATE_KAFKA_BROKERS points at another one/);
  });

  it('refuses ports that two listeners would share, or that do not exist', () => {
    expect(() =>
      loadStackConfig(
        {
          TOOLGATE_STACK_KAFKA_NODES: '3',
          TOOLGATE_STACK_KAFKA_PORT: '19092',
          TOOLGATE_STACK_KAFKA_CONTROLLER_PORT: '19094',
        },
        root,
      ),
    ).toThrow(
      'TOOLGATE_STACK_KAFKA_CONTROLLER_PORT (node 1) and TOOLGATE_STACK_KAFKA_PORT (node 2) would both listen on port 19094',
    );
    expect(() => loadStackConfig({ TOOLGATE_STACK_REDIS_PORT: '9092' }, root)).toThrow(
      'TOOLGATE_STACK_REDIS_PORT and TOOLGATE_STACK_KAFKA_PORT would both listen on port 9092',
    );
    expect(() =>
      loadStackConfig(
        { TOOLGATE_STACK_KAFKA_NODES: '3', TOOLGATE_STACK_KAFKA_PORT: '65534' },
        root,
      ),
    ).toThrow('TOOLGATE_STACK_KAFKA_PORT (node 2) would listen on 65536, beyond 65535');
  });
});

describe('addressOf', () => {
  it('never shows a password from a Redis URL', () => {
    const config = loadStackConfig({ TOOLGATE_REDIS_URL: 'redis://:s3cret@cache:6379/0' }, root);
    expect(addressOf(config, 'redis')).not.toContain('s3cret');
    expect(addressOf(config, 'redis')).toContain('cache:6379');
  });
});

describe('StackError.oneLine', () => {
  it('names component, reason and the log relative to where the user stands', () => {
    const error = new StackError('kafka', 'port 127.0.0.1:9092 is taken', {
      logFile: '/repo/.stack/logs/kafka.log',
    });
    expect(error.oneLine('/repo')).toBe(
      'kafka: port 127.0.0.1:9092 is taken (log: .stack/logs/kafka.log)',
    );
  });
});

describe('problemIn', () => {
  it('picks the error line, not the last line of chatter', () => {
    const output = [
      '[2026-11-29 20:03:09,391] INFO Registered MBean',
      'usage: kafka-storage format [-h] --config CONFIG --cluster-id CLUSTER_ID',
      'kafka-storage: error: argument --cluster-id/-t: expected one argument',
      '[2026-11-29 20:03:09,400] INFO shutting down',
    ].join('\n');
    expect(problemIn(output)).toBe(
      'kafka-storage: error: argument --cluster-id/-t: expected one argument',
    );
  });
});
