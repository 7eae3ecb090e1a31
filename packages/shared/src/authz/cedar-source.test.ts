import { describe, expect, it } from 'vitest';
import { lineOfByteOffset, lineOfIndex, splitStatements } from './cedar-source.js';

describe('splitStatements', () => {
  it('ends statements only at semicolons outside strings and comments', () => {
    const text =
      '// one; two\n@id("a;b")\npermit (principal, action, resource)\n  when { "x\\";" == "y" };\nforbid (principal, action, resource);  // trailing;\n';
    const statements = splitStatements(text);
    expect(statements.map((s) => s.text)).toEqual([
      '@id("a;b")\npermit (principal, action, resource)\n  when { "x\\";" == "y" };',
      'forbid (principal, action, resource);',
    ]);
    expect(statements.map((s) => lineOfIndex(text, s.index).line)).toEqual([2, 5]);
  });

  it('finds nothing in comments and blank text', () => {
    expect(splitStatements('  \n// permit (principal, action, resource);\n')).toEqual([]);
  });
});

describe('lineOfByteOffset', () => {
  it('counts UTF-8 bytes, as Cedar reports them', () => {
    const text = 'é\nab';
    expect(lineOfByteOffset(text, 3)).toEqual({ line: 2, column: 1 });
    expect(lineOfByteOffset(text, 4)).toEqual({ line: 2, column: 2 });
    expect(lineOfIndex(text, 3)).toEqual({ line: 2, column: 2 });
  });
});
