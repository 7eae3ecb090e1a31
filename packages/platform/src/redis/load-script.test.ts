import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IDEMPOTENCY_STATES } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { loadScript } from './load-script.js';

const SCRIPTS = readdirSync(fileURLToPath(new URL('./scripts/', import.meta.url)))
  .filter((name) => name.endsWith('.lua'))
  .map((name) => name.slice(0, -'.lua'.length));

describe('loadScript', () => {
  it.each(SCRIPTS)('loads %s with every include resolved', (file) => {
    const script = loadScript(file);
    expect(script.lua).not.toMatch(/@include/);
    expect(script.name).toBe(file.replaceAll('-', '_'));
    expect(script.sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('pulls each shared part into a script once, before the script itself', () => {
    const { lua } = loadScript('take-and-settle');
    for (const part of ['take', 'settle', 'readable']) {
      expect(lua.split(`local function ${part}(`)).toHaveLength(2);
    }
    expect(lua.indexOf('local function readable(')).toBeLessThan(lua.indexOf('if not readable('));
  });

  it('knows the idempotency states the gate writes, no more and no fewer', () => {
    const { lua } = loadScript('take-and-settle');
    const line = /^local STATES = \{(.*)\}$/m.exec(lua)?.[1] ?? '';
    const states = [...line.matchAll(/\['([a-z_]+)'\] = true/g)].map((m) => m[1]);
    expect(states).toEqual([...IDEMPOTENCY_STATES]);
  });

  it('refuses a script that is not there, naming it', () => {
    expect(() => loadScript('no-such-script')).toThrow(/no-such-script\.lua/);
  });
});
