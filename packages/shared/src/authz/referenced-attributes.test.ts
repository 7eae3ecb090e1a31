import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { describe, expect, it } from 'vitest';
import { observesWholeArguments, referencedAttributes } from './referenced-attributes.js';

function namesIn(text: string): string[] {
  const answer = cedar.policyToJson(text);
  if (answer.type === 'failure') throw new Error(answer.errors.map((e) => e.message).join('; '));
  return [...referencedAttributes(answer.json)].sort();
}

describe('referencedAttributes', () => {
  it('finds dotted, indexed and has-tested attributes of every variable', () => {
    const text = `permit (principal, action, resource) when {
      principal.tenant == resource["owner tenant"] && context has sideEffect && resource has status
    };`;
    expect(namesIn(text)).toEqual(['owner tenant', 'sideEffect', 'status', 'tenant']);
  });

  it('finds attributes deep inside conditionals, sets, records, calls and unless clauses', () => {
    const text = `forbid (principal, action, resource)
      when { if resource has a.b then [resource.c].contains({ x: resource.d }.x) else resource.e.lessThan(decimal("1.0")) }
      unless { resource.f like "x*" };`;
    expect(namesIn(text)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'x']);
  });

  it('finds nothing in a policy that reads no attribute', () => {
    expect(
      namesIn(
        'permit (principal in Toolgate::Role::"approver", action, resource is Toolgate::Tool);',
      ),
    ).toEqual([]);
  });

  it.each([
    ['context.args.x == 1 && context.args has y && context.args["a-b"].z == 2', false],
    ['context has args && context.tool == "t" && context has args.x', false],
    ['context.args == {}', true],
    ['[context.args].isEmpty()', true],
    ['context == { tool: "t" }', true],
    ['context.args.x == context.args', true],
  ])('tells whether %s observes the arguments whole', (condition, whole) => {
    const answer = cedar.policyToJson(
      `permit (principal, action, resource) when { ${condition} };`,
    );
    if (answer.type === 'failure') throw new Error(answer.errors.map((e) => e.message).join('; '));
    expect(observesWholeArguments(answer.json)).toBe(whole);
  });
});
