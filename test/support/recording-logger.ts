/** A logger for the platform adapters that keeps every line, so tests can assert on what was logged. */
import type { AdapterLogger } from '@toolgate/platform';

/** One logged line. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** An {@link AdapterLogger} that records instead of printing. */
export function recordingLogger(): AdapterLogger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (fields: object, message: string): void => {
      lines.push({ level, fields: fields as Record<string, unknown>, message });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
