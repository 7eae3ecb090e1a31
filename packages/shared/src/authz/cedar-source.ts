/**
 * Reading Cedar source text: where a byte offset falls (Cedar reports UTF-8 byte offsets), and how a
 * file splits into its policy statements, so every policy keeps its file and line.
 */
import type { DetailedError } from '@cedar-policy/cedar-wasm/nodejs';

/** One policy statement as written: its exact text and where it starts in the file. */
export interface Statement {
  readonly text: string;
  /** UTF-16 index of the statement's first character (its first annotation, if any). */
  readonly index: number;
}

/**
 * Splits parsed Cedar text into statements. A `;` ends a statement unless it is inside a string or
 * a `//` comment; Cedar has no other place for one. Only call this on text Cedar has parsed.
 */
export function splitStatements(source: string): Statement[] {
  const statements: Statement[] = [];
  let start = -1;
  for (let i = 0; i < source.length; i += 1) {
    const ch = source[i];
    if (ch === '/' && source[i + 1] === '/') {
      i = endOfLine(source, i);
    } else if (ch === '"') {
      if (start < 0) start = i;
      i = endOfString(source, i);
    } else if (ch === ';' && start >= 0) {
      statements.push({ text: source.slice(start, i + 1), index: start });
      start = -1;
    } else if (start < 0 && ch !== undefined && !/\s/.test(ch)) {
      start = i;
    }
  }
  return statements;
}

function endOfLine(source: string, from: number): number {
  const newline = source.indexOf('\n', from);
  return newline < 0 ? source.length : newline;
}

function endOfString(source: string, from: number): number {
  for (let i = from + 1; i < source.length; i += 1) {
    if (source[i] === '\\') i += 1;
    else if (source[i] === '"') return i;
  }
  return source.length;
}

/** 1-based line and column of a UTF-16 index. */
export function lineOfIndex(source: string, index: number): { line: number; column: number } {
  const before = source.slice(0, index);
  const lastBreak = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: index - lastBreak };
}

/** 1-based line and column of a UTF-8 byte offset, as Cedar's source locations give them. */
export function lineOfByteOffset(source: string, offset: number): { line: number; column: number } {
  const bytes = new TextEncoder().encode(source);
  const before = new TextDecoder().decode(bytes.subarray(0, offset));
  return lineOfIndex(before, before.length);
}

/** One line per Cedar error, located in the file `name`: `name:line:column: message (label; help)`. */
export function describeCedarErrors(
  name: string,
  source: string,
  errors: readonly DetailedError[],
): string[] {
  return errors.map((error) => {
    const location = error.sourceLocations?.[0];
    const where = location === undefined ? name : `${name}:${position(source, location.start)}`;
    const notes = [location?.label, error.help].filter((n): n is string => typeof n === 'string');
    return notes.length > 0
      ? `${where}: ${error.message} (${notes.join('; ')})`
      : `${where}: ${error.message}`;
  });
}

function position(source: string, byteOffset: number): string {
  const { line, column } = lineOfByteOffset(source, byteOffset);
  return `${line}:${column}`;
}
