import { describe, expect, it } from 'vitest';
import { kafkaNodeFiles, newClusterId, serverProperties } from './kafka.js';
import { loadStackConfig } from './stack-config.js';

const properties = (env: Record<string, string> = {}, nodeId = 1) =>
  propertiesOf(loadStackConfig(env, '/repo'), nodeId);

const propertiesOf = (config: ReturnType<typeof loadStackConfig>, nodeId: number) =>
  Object.fromEntries(
    serverProperties(config, PASSWORDS, config.kafkaNodes[nodeId - 1])
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const at = line.indexOf('=');
        return [line.slice(0, at), line.slice(at + 1)] as [string, string];
      }),
  );

const PASSWORDS = { admin: 'admin-secret', controller: 'controller-secret' };

describe('serverProperties', () => {
  it('runs broker and controller in one node on loopback', () => {
    expect(properties()).toMatchObject({
      'process.roles': 'broker,controller',
      'controller.quorum.voters': '1@127.0.0.1:9093',
      listeners: 'SASL_PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093',
      'advertised.listeners': 'SASL_PLAINTEXT://127.0.0.1:9092',
      'log.dirs': '/repo/.stack/kafka/data',
    });
  });

  it('authenticates every listener, the controller listener too', () => {
    const p = properties();
    expect(p['listener.security.protocol.map']).toBe(
      'CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
    );
    expect(p['sasl.enabled.mechanisms']).toBe('SCRAM-SHA-512');
    expect(p['sasl.mechanism.controller.protocol']).toBe('PLAIN');
    expect(p['listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config']).toContain(
      'username="admin" password="admin-secret"',
    );
    expect(p['listener.name.controller.plain.sasl.jaas.config']).toContain(
      'user_controller="controller-secret"',
    );
  });

  it('denies whatever no ACL allows, with admin the one super user besides the controller', () => {
    const p = properties();
    expect(p['authorizer.class.name']).toBe(
      'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    );
    expect(p['allow.everyone.if.no.acl.found']).toBe('false');
    expect(p['super.users']).toBe('User:admin;User:controller');
    expect(p['super.users']).not.toContain('ANONYMOUS');
  });

  it('lets transactions and consumer groups work on a single broker', () => {
    expect(properties()).toMatchObject({
      'offsets.topic.replication.factor': '1',
      'transaction.state.log.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
    });
  });

  it('refuses to create topics nobody declared', () => {
    expect(properties()['auto.create.topics.enable']).toBe('false');
  });

  it('follows the ports it is given', () => {
    const moved = properties({
      TOOLGATE_STACK_KAFKA_PORT: '19092',
      TOOLGATE_STACK_KAFKA_CONTROLLER_PORT: '19093',
    });
    expect(moved['listeners']).toBe(
      'SASL_PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093',
    );
  });
});

describe('serverProperties of three nodes', () => {
  const three = { TOOLGATE_STACK_KAFKA_NODES: '3' };

  it('gives each node its id, its own listeners and storage, and all three as voters', () => {
    expect(properties(three, 2)).toMatchObject({
      'process.roles': 'broker,controller',
      'node.id': '2',
      'controller.quorum.voters': '1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097',
      listeners: 'SASL_PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:9095',
      'advertised.listeners': 'SASL_PLAINTEXT://127.0.0.1:9094',
      'log.dirs': '/repo/.stack/kafka/three-nodes/node-2/data',
    });
  });

  it('replicates every topic, the internal ones too, thrice with two in sync', () => {
    expect(properties(three, 3)).toMatchObject({
      'default.replication.factor': '3',
      'min.insync.replicas': '2',
      'offsets.topic.replication.factor': '3',
      'transaction.state.log.replication.factor': '3',
      'transaction.state.log.min.isr': '2',
      'share.coordinator.state.topic.replication.factor': '3',
      'share.coordinator.state.topic.min.isr': '2',
    });
  });

  it('fences a killed node within seconds and keeps thread counts small', () => {
    expect(properties(three, 1)).toMatchObject({
      'broker.session.timeout.ms': '3000',
      'broker.heartbeat.interval.ms': '500',
      'num.network.threads': '2',
      'num.io.threads': '2',
      'background.threads': '2',
      'num.replica.fetchers': '1',
    });
  });

  it('keeps the same security as one node', () => {
    const one = properties();
    const node = properties(three, 3);
    for (const key of [
      'listener.security.protocol.map',
      'sasl.enabled.mechanisms',
      'sasl.mechanism.controller.protocol',
      'authorizer.class.name',
      'allow.everyone.if.no.acl.found',
      'super.users',
      'auto.create.topics.enable',
    ]) {
      expect(node[key], key).toBe(one[key]);
    }
  });

  it('leaves one node as it was: no cluster settings, its files where they were', () => {
    const one = properties();
    expect(one['min.insync.replicas']).toBeUndefined();
    expect(one['broker.session.timeout.ms']).toBeUndefined();
    const config = loadStackConfig({}, '/repo');
    expect(kafkaNodeFiles(config, config.kafkaNodes[0]!)).toEqual({
      dir: '/repo/.stack/kafka',
      dataDir: '/repo/.stack/kafka/data',
      properties: '/repo/.stack/kafka/server.properties',
      log: '/repo/.stack/logs/kafka.log',
      pidFile: '/repo/.stack/run/kafka.pid',
    });
  });
});

describe('newClusterId', () => {
  it('makes 22-character URL-safe ids that no argument parser mistakes for an option', () => {
    for (let i = 0; i < 2_000; i++) {
      const id = newClusterId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});
