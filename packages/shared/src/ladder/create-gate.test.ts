import { describe, expect, it } from 'vitest';
import { ConfigError, mintSession } from '../auth/index.js';
import { CeilingsConfigError } from '../limits/index.js';
import type { ToolSpec } from '../tool-spec.js';
import { ToolDefinitionError } from '../tools/index.js';
import { createGate } from './create-gate.js';
import { defineDeployment, type Deployment } from '../deployment.js';

const tool = (overrides: Partial<ToolSpec> = {}): ToolSpec => ({
  name: 'search',
  description: 'Searches the knowledge base.',
  version: '1',
  sideEffect: 'read',
  input: {
    type: 'object',
    properties: { query: { type: 'string' } },
    required: ['query'],
    additionalProperties: false,
  },
  ...overrides,
});

const deployment = (overrides: Partial<Deployment> = {}): Deployment =>
  defineDeployment({
    name: 'test',
    tools: [tool()],
    tenants: ['acme'],
    policies: [{ name: 'all.cedar', text: 'permit (principal, action, resource);' }],
    sessions: { secret: 's'.repeat(32), issuer: 'https://id.example.test' },
    ...overrides,
  });

describe('createGate', () => {
  it("builds the tools under the deployment's ceilings: a tool that sets none gets them", () => {
    const gate = createGate(deployment({ ceilings: { toolTimeoutMs: 3_000, resultBytes: 2_048 } }));
    expect(gate.registry.get('search')).toMatchObject({ timeoutMs: 3_000, resultMaxBytes: 2_048 });
  });

  it('lets a deployment raise the ceilings so that its tools may declare more', () => {
    const gate = createGate(
      deployment({
        tools: [tool({ timeoutMs: 60_000, result: { maxBytes: 1 << 17 } })],
        ceilings: { toolTimeoutMs: 120_000, resultBytes: 1 << 17 },
      }),
    );
    expect(gate.registry.get('search')).toMatchObject({
      timeoutMs: 60_000,
      resultMaxBytes: 1 << 17,
    });
  });

  it('refuses to start with a tool above a ceiling the deployment lowered', () => {
    const lowered = deployment({
      tools: [tool({ timeoutMs: 5_000 })],
      ceilings: { toolTimeoutMs: 1_000 },
    });
    expect(() => createGate(lowered)).toThrow(ToolDefinitionError);
    expect(() => createGate(lowered)).toThrow(/timeoutMs 5000 is above .* ceiling of 1000/);
  });

  it('reports bad ceilings as such, before the tools are loaded under them', () => {
    expect(() => createGate(deployment({ ceilings: { toolTimeoutMs: 0 } }))).toThrow(
      CeilingsConfigError,
    );
  });

  it('names the problems of every part of the deployment at once, each with its part', () => {
    const bad = deployment({
      confirmationTtlSeconds: 0,
      ceilings: { maxDepth: 0 },
      tools: [tool({ name: '1search' })],
      policies: [{ name: 'all.cedar', text: 'permit (principal, action, resource)' }],
      sessions: { secret: 'short', issuer: 'https://id.example.test' },
    });
    let problems: readonly string[] = [];
    try {
      createGate(bad);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      problems = (error as ConfigError).problems;
    }
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'confirmationTtlSeconds must be an integer from 1 to 604800, got 0',
      'ceilings',
      'tools',
      'policies',
      'sessions',
    ]);
  });

  it('refuses bad alert rules at start, naming the rule and the setting, with the other parts', () => {
    const bad = deployment({
      analytics: { alerts: { rules: { forgery: { enabled: false } } } },
      ceilings: { maxDepth: 0 },
    });
    expect(() => createGate(bad)).toThrow(
      /analytics\.alerts: rules\.forgery\.enabled: must be true, the rule is always on/,
    );
    expect(() => createGate(bad)).toThrow(/ceilings: maxDepth/);
    const tuned = { alerts: { rules: { authorization_probing: { threshold: 9 } } } };
    expect(() => createGate(deployment({ analytics: tuned }))).not.toThrow();
  });

  it('checks the tools under the largest ceilings when the ceilings are bad', () => {
    const bad = deployment({
      tools: [tool({ timeoutMs: 60_000 }), tool({ name: 'slow', timeoutMs: 2 * 86_400_000 })],
      ceilings: { toolTimeoutMs: 120_000, maxDepth: 0 },
      sessions: { secret: 'short', issuer: 'https://id.example.test' },
    });
    expect(() => createGate(bad)).toThrow(/tools: slow: timeoutMs 172800000 is above/);
    expect(() => createGate(bad)).not.toThrow(/tools: search/);
  });

  it('refuses to start with a confirmation TTL that is not whole seconds from 1 to a week', () => {
    const bad = [0, -60, 1.5, 0.0005, Number.NaN, Infinity, 30 * 60 * 1000, '1800', 10n];
    for (const confirmationTtlSeconds of bad as number[]) {
      expect(
        () => createGate(deployment({ confirmationTtlSeconds })),
        `${confirmationTtlSeconds}`,
      ).toThrow(ConfigError);
    }
    expect(() => createGate(deployment({ confirmationTtlSeconds: 0 }))).toThrow(
      /confirmationTtlSeconds must be an integer from 1 to 604800, got 0/,
    );
  });

  it('takes a whole number of seconds up to a week as the confirmation TTL', () => {
    for (const confirmationTtlSeconds of [1, 1800, 7 * 24 * 60 * 60]) {
      expect(() => createGate(deployment({ confirmationTtlSeconds }))).not.toThrow();
    }
  });
});

describe('createGate: tenants and workers', () => {
  it('serves the tenants the deployment lists', () => {
    expect([...createGate(deployment({ tenants: ['acme', 'globex'] })).tenants]).toEqual([
      'acme',
      'globex',
    ]);
  });

  it('refuses a deployment without tenants, with a name no topic can carry, or listed twice', () => {
    expect(() => createGate(deployment({ tenants: [] }))).toThrow(/list at least one tenant/);
    const refused = (() => {
      try {
        createGate(
          deployment({
            tenants: ['acme', 'acme', 'two words'],
            workers: [{ principal: 'worker-x', name: 'x', tools: ['teleport'] }],
          }),
        );
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems).toEqual([
      'tenant acme is listed twice',
      'tenant "two words" is not 1-64 characters of A-Z a-z 0-9 _ -',
      'worker worker-x runs teleport, which is not a tool of the deployment',
    ]);
  });

  it('refuses, as unknown_tenant, a verified session of a tenant it does not serve', async () => {
    const gate = createGate(deployment({ tenants: ['acme'] }));
    const now = new Date('2026-12-07T12:00:00Z');
    const session = (tenant: string) =>
      mintSession({ subject: 'ann', tenant, roles: [] }, 's'.repeat(32), {
        now,
        ttlSeconds: 60,
        issuer: 'https://id.example.test',
      });
    expect((await gate.verifier.verify(await session('acme'), now)).ok).toBe(true);
    expect(await gate.verifier.verify(await session('initech'), now)).toMatchObject({
      ok: false,
      stage: 'authentication',
      code: 'unknown_tenant',
      disposition: 'deny',
    });
  });
});
