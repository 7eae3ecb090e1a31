import { describe, expect, it } from 'vitest';
import { redisTarget } from './redis-client.js';

describe('redisTarget', () => {
  it('reads one server, its user, password and database', () => {
    expect(redisTarget('redis://toolgate-gate:p%40ss@127.0.0.1:6380/2')).toEqual({
      nodes: [{ host: '127.0.0.1', port: 6380 }],
      username: 'toolgate-gate',
      password: 'p@ss',
      db: 2,
      tls: false,
    });
  });

  it('takes port 6379 when a node names none, and TLS for rediss', () => {
    expect(redisTarget('rediss://cache.internal')).toEqual({
      nodes: [{ host: 'cache.internal', port: 6379 }],
      db: 0,
      tls: true,
    });
  });

  it('reads several nodes as the seeds of a cluster', () => {
    const target = redisTarget('redis://gate:pw@127.0.0.1:17001,127.0.0.1:17002,[::1]:17003/');
    expect(target.nodes).toEqual([
      { host: '127.0.0.1', port: 17001 },
      { host: '127.0.0.1', port: 17002 },
      { host: '::1', port: 17003 },
    ]);
    expect(target.username).toBe('gate');
  });

  it('refuses a database other than 0 for a cluster, a bad port and a URL of another scheme', () => {
    expect(() => redisTarget('redis://h1:1,h2:2/3')).toThrow(/only database 0/);
    expect(() => redisTarget('redis://h1:1,h2:70000')).toThrow(/"h2:70000" must be host\[:port\]/);
    expect(() => redisTarget('redis://h1:1,,h2:2')).toThrow(/must be host/);
    expect(() => redisTarget('http://h1:1')).toThrow(/redis\[s\]:\/\//);
  });
});
