/**
 * The one error the stack driver reports: which component, why, and which log to read. The CLI
 * prints it as a single line; the vitest global setup wraps it with what to do next.
 */
import path from 'node:path';

/** A failure of one component of the stack (or of its configuration). */
export class StackError extends Error {
  /** `redis`, `kafka`, `registry` or `config`. */
  readonly component: string;
  /** The reason, short enough for one line. */
  readonly reason: string;
  /** The log that tells more, when there is one. */
  readonly logFile: string | undefined;

  constructor(
    component: string,
    reason: string,
    options: { readonly logFile?: string; readonly cause?: unknown } = {},
  ) {
    super(`${component}: ${reason}`, { cause: options.cause });
    this.name = 'StackError';
    this.component = component;
    this.reason = reason;
    this.logFile = options.logFile;
  }

  /** `component: reason (log: path)`, the path relative to `cwd` when it lies inside it. */
  oneLine(cwd: string = process.cwd()): string {
    const flat = this.message.replace(/\s*\n\s*/g, ' ');
    return this.logFile === undefined ? flat : `${flat} (log: ${displayPath(this.logFile, cwd)})`;
  }
}

/** A path as a person at `cwd` would type it: relative when inside `cwd`, else absolute. */
export function displayPath(file: string, cwd: string = process.cwd()): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/** The last line of `text` that looks like a failure, else its last line: a one-line reason. */
export function problemIn(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const problem =
    lines.filter((l) => /\b(ERROR|FATAL|Exception|[Ee]rror:)/.test(l)).pop() ?? lines.pop();
  return (problem ?? 'no output').slice(0, 240);
}
