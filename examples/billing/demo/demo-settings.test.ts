import { describe, expect, it } from 'vitest';
import { ConfigError } from '@toolgate/shared';
import { DEMO_INTEGRITY_KEY, demoSettings } from './demo-settings.js';

describe('demoSettings', () => {
  it('gives the stages a demo integrity key and their default ports when nothing is set', () => {
    const s = demoSettings([], {});
    expect(s.once).toBe(false);
    expect(s.env['TOOLGATE_INTEGRITY_KEY']).toBe(DEMO_INTEGRITY_KEY);
    expect(s.ports).toEqual({ validate: 9101, authorize: 9102, confirm: 9103, execute: 9104 });
    expect(s.approvalUrl).toBe('http://127.0.0.1:9103');
    expect(s.runTag).toMatch(/^[a-z0-9]{1,24}$/);
  });

  it('follows a base port, a separate approval port and a namespace', () => {
    const s = demoSettings(['--once'], {
      TOOLGATE_HTTP_PORT: '20000',
      TOOLGATE_CONFIRMATION_HTTP_PORT: '20100',
      TOOLGATE_TOPIC_PREFIX: 'ns-1.',
      TOOLGATE_INTEGRITY_KEY: 'an-integrity-key-of-the-callers-own-000000',
    });
    expect(s.once).toBe(true);
    expect(s.ports).toEqual({ validate: 20000, authorize: 20001, confirm: 20002, execute: 20003 });
    expect(s.approvalUrl).toBe('http://127.0.0.1:20100');
    expect(s.logDir).toMatch(/\.demo\/logs\/ns-1$/);
    expect(s.env['TOOLGATE_INTEGRITY_KEY']).toBe('an-integrity-key-of-the-callers-own-000000');
  });

  it('refuses an unknown argument and ports it cannot know, naming each', () => {
    expect(() => demoSettings(['--twice'], {})).toThrow(ConfigError);
    expect(() => demoSettings([], { TOOLGATE_HTTP_PORT: '0' })).toThrow(/TOOLGATE_HTTP_PORT=0/);
    expect(() => demoSettings([], { TOOLGATE_HTTP_PORT: 'x' })).toThrow(ConfigError);
  });
});
