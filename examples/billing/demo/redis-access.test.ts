import { describe, expect, it } from 'vitest';
import { redisUserOf } from './redis-access.js';

describe('redisUserOf', () => {
  it("names the user of one server's URL", () => {
    expect(redisUserOf('redis://worker-acme:p%40ss@127.0.0.1:6380')).toBe('worker-acme');
  });

  it("names the user of a cluster's URL, which lists several nodes", () => {
    expect(redisUserOf('redis://worker-acme:pass@127.0.0.1:7100,127.0.0.1:7101')).toBe(
      'worker-acme',
    );
  });

  it('says default when the URL names no user', () => {
    expect(redisUserOf('redis://127.0.0.1:6380')).toBe('default');
  });
});
