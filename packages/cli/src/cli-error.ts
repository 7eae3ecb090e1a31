/**
 * Exit codes scripts can rely on, and the error that carries one. Every command maps its failures
 * to one of these; nothing else leaves the process with a stack trace.
 */

/** The process exit codes of `toolgate`. */
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** The command ran but its job failed (e.g. a scripted workload whose outcomes differed). */
  failed: 1,
  /** Bad usage or bad configuration: fix the command line or the config file. */
  usage: 2,
  /** Infrastructure (Kafka, the registry, Redis, the approval API) could not be reached. */
  unavailable: 3,
  /** The session token was refused (missing, invalid, expired) or the caller may not do this. */
  denied: 4,
  /** What the command names does not exist (a confirmation, a topic). */
  notFound: 5,
} as const;

/** One exit code. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure with a one-line message for the user and the exit code it leads to. */
export class CliError extends Error {
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
