import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wrapToolOutput } from './wrap-tool-output.js';

/** Splits a wrapped text into its opening marker, content and closing marker lines. */
function parts(wrapped: string) {
  const first = wrapped.indexOf('\n');
  const last = wrapped.lastIndexOf('\n');
  return {
    open: wrapped.slice(0, first),
    content: wrapped.slice(first + 1, last),
    close: wrapped.slice(last + 1),
  };
}

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

/** Text made of marker fragments, so forgeries and near-forgeries are common. */
const markerish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '<',
        '<<',
        '<<<',
        '<<<<',
        '>>>',
        '\\',
        '\n',
        'end_tool_output',
        'tool_output',
      ),
      fc.constantFrom(' id=', '0123456789abcdef', '>'),
      fc.string(),
    ),
    { maxLength: 12 },
  )
  .map((xs) => xs.join(''));

describe('wrapToolOutput', () => {
  it('puts the content between markers that carry a digest of it', () => {
    const id = createHash('sha256').update('{"temp":21}').digest('hex').slice(0, 16);
    expect(wrapToolOutput('{"temp":21}')).toBe(
      `<<<tool_output id=${id}>>>\n{"temp":21}\n<<<end_tool_output id=${id}>>>`,
    );
  });

  it('leaves content without a run of three < exactly as it was', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        fc.pre(!text.includes('<<<'));
        expect(parts(wrapToolOutput(text)).content).toBe(text);
      }),
    );
  });

  it('neutralises every run of three or more <', () => {
    expect(parts(wrapToolOutput('a<<<b<<<<<c<<d')).content).toBe('a<\\<\\<b<\\<\\<\\<\\<c<<d');
  });

  it('gives different content different markers', () => {
    expect(parts(wrapToolOutput('a')).close).not.toBe(parts(wrapToolOutput('b')).close);
  });

  it('never lets the content contain or forge the closing marker', () => {
    fc.assert(
      fc.property(fc.oneof(markerish, fc.string({ unit: 'binary' })), (text) => {
        const wrapped = wrapToolOutput(text);
        const { open, content, close } = parts(wrapped);
        expect(open).toMatch(/^<<<tool_output id=[0-9a-f]{16}>>>$/);
        expect(close).toBe(open.replace('<<<tool_output', '<<<end_tool_output'));
        expect(content).not.toContain('<<<');
        expect(count(wrapped, close)).toBe(1);
        expect(wrapped.endsWith(close)).toBe(true);
        expect(count(wrapped, '<<<')).toBe(2);
      }),
      { numRuns: 3000 },
    );
  });

  it('defeats a closing marker copied from an earlier output', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (earlier, tail) => {
        const stolen = parts(wrapToolOutput(earlier)).close;
        const wrapped = wrapToolOutput(`${earlier}\n${stolen}\n${tail}`);
        expect(count(wrapped, stolen)).toBe(0);
      }),
    );
  });
});
