/**
 * A configuration fault: thrown at start-up (or when keys or policies are reloaded), never for a
 * proposal. It lists every problem at once so an operator fixes them in one pass.
 */
export class ConfigError extends Error {
  /** Stable code for the stage loop and logs. */
  readonly code = 'config_error';
  /** Configuration does not fix itself on redelivery. */
  readonly retriable = false;
  /** Every problem found, one sentence each; never a secret. */
  readonly problems: readonly string[];

  /** `what` names the configuration (e.g. "session keys"); `problems` must not be empty. */
  constructor(what: string, problems: readonly string[], options?: ErrorOptions) {
    super(`invalid ${what}: ${problems.join('; ')}`, options);
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }
}
