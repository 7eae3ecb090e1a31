import { describe, expect, it } from 'vitest';
import { nodeConfig } from './redis-cluster.js';
import { probeRedis, redisNodeUrls, redisUrlWith } from './redis.js';

describe('nodeConfig', () => {
  it('runs a node in cluster mode on its port and bus port, with the ACL file and replication user', () => {
    const layout = {
      dir: '/tmp/c',
      host: '127.0.0.1',
      firstPort: 17001,
      firstBusPort: 27001,
      adminPassword: 'pw',
    };
    const lines = nodeConfig(layout, 2).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'port 17003',
        'cluster-enabled yes',
        'cluster-port 27003',
        'cluster-node-timeout 2000',
        'aclfile /tmp/c/users.acl',
        'masteruser admin',
        'masterauth pw',
        'dir /tmp/c/node-2',
      ]),
    );
  });
});

describe('redisUrlWith and redisNodeUrls', () => {
  it("puts a user's credentials in a server's or a cluster's URL", () => {
    expect(redisUrlWith('redis://127.0.0.1:6380', 'gate', 'p/w')).toBe(
      'redis://gate:p%2Fw@127.0.0.1:6380',
    );
    expect(redisUrlWith('redis://old:x@h1:1,h2:2/', 'gate', 'pw')).toBe(
      'redis://gate:pw@h1:1,h2:2',
    );
  });

  it('names each node of a cluster with the same credentials', () => {
    expect(redisNodeUrls('redis://a:b@h1:1,h2:2')).toEqual([
      'redis://a:b@h1:1',
      'redis://a:b@h2:2',
    ]);
    expect(redisNodeUrls('redis://h1:1/0')).toEqual(['redis://h1:1/0']);
  });
});

describe('probeRedis', () => {
  it("probes a URL listing a cluster's nodes as a cluster, through its first node", async () => {
    // Nothing listens on port 1: the probe names the node that did not answer, and throws nothing.
    expect(await probeRedis('redis://admin:pw@127.0.0.1:1,127.0.0.1:2')).toEqual({
      ready: false,
      why: 'no answer from redis://127.0.0.1:1',
    });
  });
});
