/**
 * Thrown by `createToolRegistry` at start-up, never for a proposal: the deployment's tool
 * definitions are configuration, and bad configuration stops the process with every problem named.
 */
export class ToolDefinitionError extends Error {
  /** Every problem of every tool, each naming the tool (`search: …`). */
  readonly problems: readonly string[];
  /** Stable fault code for logs and alerts. */
  readonly code = 'tool_definition_invalid';
  /** Configuration does not fix itself: restarting with the same definitions fails the same way. */
  readonly retriable = false;

  constructor(problems: readonly string[]) {
    const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
    super(`Tool definitions refused (${count}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'ToolDefinitionError';
    this.problems = Object.freeze([...problems]);
  }
}
