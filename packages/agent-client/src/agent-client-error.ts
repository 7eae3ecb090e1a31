/**
 * What the agent client throws. A refusal by the gate is never an exception: it arrives as an
 * observation with outcome `rejected`. These errors say that the client could not do its part
 * (no answer in time, closed, a response it cannot read), each with a stable `code`.
 */

/** The codes of {@link AgentClientError}. */
export const AGENT_CLIENT_ERRORS = {
  /** No terminal observation for the proposal within the timeout. */
  observationTimeout: 'observation_timeout',
  /** The client was closed while waiting, or used after `close()`. */
  clientClosed: 'client_closed',
  /** The observation consumer stopped for good (kafkajs gave up restarting it). */
  feedFailed: 'observation_feed_failed',
  /** The consumer did not join its group in time at start-up. */
  joinTimeout: 'join_timeout',
  /** A provider response is not of the shape its adapter reads. */
  unrecognizedResponse: 'unrecognized_response',
  /** No session token to send with a proposal. */
  missingSession: 'missing_session',
} as const;

/** One code of {@link AGENT_CLIENT_ERRORS}. */
export type AgentClientErrorCode = (typeof AGENT_CLIENT_ERRORS)[keyof typeof AGENT_CLIENT_ERRORS];

/** The base of every error the agent client throws. */
export class AgentClientError extends Error {
  /** A stable code from {@link AGENT_CLIENT_ERRORS}. */
  readonly code: AgentClientErrorCode;

  constructor(code: AgentClientErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AgentClientError';
    this.code = code;
  }
}

/** No terminal observation arrived for `proposalId` within `timeoutMs`. */
export class ObservationTimeoutError extends AgentClientError {
  /** The proposal whose observation did not come. */
  readonly proposalId: string;
  /** How long the client waited, in milliseconds. */
  readonly timeoutMs: number;

  constructor(proposalId: string, timeoutMs: number) {
    super(
      AGENT_CLIENT_ERRORS.observationTimeout,
      `no terminal observation for proposal ${proposalId} within ${timeoutMs} ms`,
    );
    this.name = 'ObservationTimeoutError';
    this.proposalId = proposalId;
    this.timeoutMs = timeoutMs;
  }
}

/** A provider response that its adapter cannot read (not a response of that provider). */
export class UnrecognizedResponseError extends AgentClientError {
  /** The adapter's format, e.g. `openai-chat`. */
  readonly format: string;

  constructor(format: string, problem: string) {
    super(AGENT_CLIENT_ERRORS.unrecognizedResponse, `unrecognized ${format} response: ${problem}`);
    this.name = 'UnrecognizedResponseError';
    this.format = format;
  }
}
