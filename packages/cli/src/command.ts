/**
 * The shape every `toolgate` command has: a name, help text, declared options, and a run
 * function that gets parsed values and the process streams (so tests can drive it in-process).
 */
import type { Readable, Writable } from 'node:stream';
import { CliError, EXIT } from './cli-error.js';

/** The streams and environment a command may use. */
export interface CommandIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * For commands that run until the user stops them (`tail`): starts listening for Ctrl-C and
   * SIGTERM and returns a signal aborted on either. Absent, such a command runs until its own end
   * (e.g. `--max`). Only commands that call it change how the process treats signals.
   */
  readonly stopSignal?: () => AbortSignal;
}

/** One declared option, as `node:util` parseArgs takes it, plus its help text. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly description: string;
  readonly short?: string;
  readonly multiple?: boolean;
}

/** Parsed option values. */
export type OptionValues = Readonly<
  Record<string, string | boolean | (string | boolean)[] | undefined>
>;

/** One `toolgate` command. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly details?: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Runs the command; resolves to the process exit code. */
  run(context: {
    readonly values: OptionValues;
    readonly positionals: readonly string[];
    readonly io: CommandIo;
  }): Promise<number>;
}

/** The value of a required string option, or a usage error naming it. */
export function requiredString(values: OptionValues, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new CliError(`--${name} is required`, EXIT.usage);
  return v;
}

/** The value of an optional string option. */
export function optionalString(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}
