import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../auth/config-error.js';
import { loadPolicySet, policySetVersion, type PolicySource } from './policy-set.js';

const permitAll: PolicySource = {
  name: 'all.cedar',
  text: 'permit (principal, action, resource);',
};

function problemsOf(sources: readonly PolicySource[]): readonly string[] {
  try {
    loadPolicySet(sources);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadPolicySet', () => {
  it('names each policy by its @id, else by file and line', () => {
    const text =
      '// a comment; with "quotes"\npermit (principal, action, resource)\nwhen { "a;b" == "a;b" };\n\n@id("second")\nforbid (principal, action, resource) when { false };';
    expect(loadPolicySet([{ name: 'p.cedar', text }]).policyIds).toEqual(['p.cedar:2', 'second']);
  });

  it('names file, line and column of a parse error, counting lines past non-ASCII text', () => {
    const text =
      'permit (principal, action, resource);\n// déjà vu\npermit (principal action, resource);';
    const problems = problemsOf([{ name: 'bad.cedar', text }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^bad\.cedar:3:19: .*unexpected token `action`/);
  });

  it('reports the problems of every file at once', () => {
    const problems = problemsOf([
      { name: 'a.cedar', text: 'permit (principal, action, resource)' },
      { name: 'b.cedar', text: 'forbid (principal, action, resource) when { ;' },
      { name: 'c.cedarschema', text: 'namespace Toolgate { entity User }' },
    ]);
    expect(problems.map((p) => p.split(':')[0])).toEqual(['c.cedarschema', 'a.cedar', 'b.cedar']);
  });

  it('refuses duplicate source names, duplicate policy ids and a second schema', () => {
    const schema = { name: 'a.cedarschema', text: 'namespace Toolgate { entity User; }' };
    const problems = problemsOf([
      permitAll,
      permitAll,
      {
        name: 'ids.cedar',
        text: '@id("x") permit (principal, action, resource);\n@id("x") forbid (principal, action, resource);',
      },
      schema,
      { ...schema, name: 'b.cedarschema' },
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        'source name all.cedar is given twice',
        'more than one schema: a.cedarschema, b.cedarschema',
        'policy id x is used twice',
      ]),
    );
  });

  it('refuses templates, which nothing would link', () => {
    const template = {
      name: 't.cedar',
      text: 'permit (principal == ?principal, action, resource);',
    };
    expect(problemsOf([template])).toEqual([expect.stringMatching(/^t\.cedar: .*template/)]);
  });

  it('refuses a set without policies', () => {
    expect(problemsOf([])).toEqual(['no policies were given']);
    expect(problemsOf([{ name: 'empty.cedar', text: '// nothing yet\n' }])).toEqual([
      'no policies were given',
    ]);
  });

  it('validates policies against the schema and keeps validator warnings for the shell', () => {
    const schema = {
      name: 's.cedarschema',
      text: 'namespace Toolgate { entity User { tenant: String }; entity Tool; action "read" appliesTo { principal: [User], resource: [Tool] }; }',
    };
    const typo = {
      name: 'typo.cedar',
      text: 'permit (principal, action, resource)\nwhen { principal.tenat == "acme" };',
    };
    expect(problemsOf([schema, typo])[0]).toMatch(
      /^typo\.cedar:2:8: .*tenat.*did you mean `tenant`/,
    );
    const never = {
      name: 'never.cedar',
      text: 'permit (principal, action, resource) when { false };',
    };
    expect(loadPolicySet([schema, never]).warnings[0]).toMatch(/^never\.cedar:1:1: .*impossible/);
  });

  it('returns a frozen set', () => {
    const set = loadPolicySet([permitAll]);
    expect(Object.isFrozen(set)).toBe(true);
    expect(Object.isFrozen(set.policyIds)).toBe(true);
  });
});

describe('policySetVersion', () => {
  it('is sha256 hex over the canonical JSON of [name, text] pairs sorted by name', () => {
    const sources = [
      { name: 'b.cedar', text: 'B' },
      { name: 'a.cedar', text: 'A' },
    ];
    const expected = createHash('sha256').update('[["a.cedar","A"],["b.cedar","B"]]').digest('hex');
    expect(policySetVersion(sources)).toBe(expected);
    expect(loadPolicySet([permitAll]).version).toBe(policySetVersion([permitAll]));
  });

  it('changes with a name or a text, and cannot be forged by moving text between them', () => {
    const base = policySetVersion([{ name: 'ab', text: 'c' }]);
    expect(policySetVersion([{ name: 'a', text: 'bc' }])).not.toBe(base);
    expect(policySetVersion([{ name: 'ab', text: 'c ' }])).not.toBe(base);
    expect(policySetVersion([{ name: 'ab', text: 'c' }])).toBe(base);
  });
});
