/**
 * The fault catalogue: every code a {@link Fault} may carry, whether a fault with that code is
 * retriable, what it means and what an operator does about it. The code decides `retriable`, never
 * the place that throws: the stage loop pauses and delivers again on a retriable fault, and ends
 * the call with `internal_error` on any other. A code is a metrics label
 * (`toolgate_faults_total{code}`) and the first clue in a log line, so the list is closed.
 * `docs/fault-codes.md` is generated from this object (`npm run docs:faults`) and kept in sync by
 * a test.
 */

/** One catalogue entry. */
export interface FaultSpec {
  /** True when delivering the same message again later may succeed: the stage pauses and waits. */
  readonly retriable: boolean;
  /** The part of the gate that raises it. */
  readonly raisedBy: string;
  /** What happened, in an operator's words. */
  readonly meaning: string;
  /** What an operator does when it shows up in the logs or the metrics. */
  readonly operator: string;
}

const retriable = (raisedBy: string, meaning: string, operator: string): FaultSpec => ({
  retriable: true,
  raisedBy,
  meaning,
  operator,
});

const fatal = (raisedBy: string, meaning: string, operator: string): FaultSpec => ({
  retriable: false,
  raisedBy,
  meaning,
  operator,
});

const BUS = 'the bus (Kafka)';
const STORE = 'the store (Redis)';
const CODEC = 'the codec (schema registry)';
const START = 'start-up';

/** Every fault code, grouped by what raises it. */
export const FAULT_CODES = {
  kafka_unavailable: retriable(
    BUS,
    'A broker, group coordinator or partition leader could not be reached, timed out, or answered "try later"; also a stage loop that is stopping and may open no new producer.',
    'Check the brokers, and the network and credentials between them and the process. The stage pauses the partition and delivers the message again; its consumer lag grows until Kafka answers.',
  ),
  kafka_fenced: fatal(
    BUS,
    'A newer producer with the same transactional id (`<group>.<TOOLGATE_INSTANCE_ID>`) exists, or the process stalled past its transaction timeout and the broker aborted its open transaction; either way this producer may write no more.',
    'Expected once when a restarted instance fences its predecessor, and when a process wakes from a stall (paused, swapped out) longer than its transaction timeout. Otherwise two running instances share one TOOLGATE_INSTANCE_ID: give each its own. The fenced stage loop stops its whole process (exit code 1) for the orchestrator to restart it.',
  ),
  kafka_error: fatal(
    BUS,
    'Kafka refused a request for a reason a retry cannot fix: an operation the ACLs do not allow, a failed login, a request the broker cannot take.',
    'Read the Kafka error in the log line. Check the credentials, and that the ACLs give this principal what docs/security.md lists (`toolgate acls apply`).',
  ),
  kafka_record_too_large: fatal(
    BUS,
    'A record the stage was about to write is larger than one produce request may carry: sent, it would fail its transaction and every one after it.',
    'The call gets an `internal_error` observation instead. Look at what made the record so large (the audit event names the call); lower the ceilings on arguments or results if they allow it.',
  ),
  redis_unavailable: retriable(
    STORE,
    'Redis could not be reached or did not answer in time (connection lost, timeout, LOADING, BUSY, READONLY, OOM, authentication, max clients).',
    'Check Redis and the network to it. Nothing is executed meanwhile: the stage pauses the partition and delivers again, never skipping the idempotency check.',
  ),
  redis_error: fatal(
    STORE,
    'Redis refused a command for a reason a retry cannot fix: a key of the wrong type, an unknown command (a Redis older than 6.2) or an error inside a script.',
    'Check the Redis version (6.2 or later) and that nothing else writes under the gate key prefix. The call ends with `internal_error`; file a bug if neither explains it.',
  ),
  store_corrupt: fatal(
    STORE,
    'A value stored in Redis is not what the gate wrote (it does not parse, or has the wrong shape).',
    'Something else writes under the gate key prefix, or two gate versions disagree on a format. Find the writer; the key is in the message. The call ends with `internal_error`.',
  ),
  registry_unavailable: retriable(
    CODEC,
    'The schema registry could not be reached, timed out or answered "try later" (408, 429, 502, 503 or 504; its HTTP client reports a refused connection as 400), or two processes set up one subject at once.',
    'Check the registry and the network to it. Stages and clients wait and try again; at start-up they give up after two minutes.',
  ),
  schema_not_registered: retriable(
    CODEC,
    'A client looked up a schema the gate has not registered yet: the gate registers its schemas when it starts.',
    'Start the gate (any stage) once; a client started before it waits for it.',
  ),
  schema_rejected: fatal(
    CODEC,
    'A schema is not a strict JSON Schema draft 2020-12, or the registry refused it (for example as incompatible with the version it holds).',
    'A schema change broke compatibility, or the subject holds foreign versions. Compare with the registry subject (`<topic>-value`) and its compatibility level.',
  ),
  invalid_message: fatal(
    CODEC,
    'A value the gate was about to write breaks its own schema, or would not decode on the other side.',
    'A gate bug: the call ends with `internal_error`. File a bug with the log line, which names the subject and the problem.',
  ),
  unregistered_subject: fatal(
    CODEC,
    'A process tried to write a message type whose schema it has not registered or adopted.',
    'A wiring bug in the process that threw it. File a bug.',
  ),
  tool_call_running: retriable(
    'the tool worker',
    'A command reached a worker while another delivery of the same command is still running its handler and renewing its lease in the ledger (Kafka gave the partition to this worker during a rebalance).',
    'Nothing to do when it passes: the partition is delivered again after a backoff, and by then the earlier delivery has recorded its result (replayed) or its lease has lapsed (this worker takes over). If it repeats for one command for longer than its tool runs, look for a worker that is alive but stuck in that handler.',
  ),
  read_timed_out: retriable(
    'reading a topic window (the CLI, the demo)',
    'Reading a topic did not reach the end of the window in time: an open transaction holds read-committed readers back until it ends.',
    'Try again; if it persists, look for a producer that left a transaction open (it ends within the transaction timeout).',
  ),
  topics_unseen: fatal(
    START,
    'A stage or tool worker cannot see a topic it needs: the topic is missing, or no ACL lets its Kafka principal use it.',
    'Create the topics and ACLs first (`toolgate topics create` and `toolgate acls apply` with an admin identity). The message names the topics.',
  ),
  command_key_missing: fatal(
    START,
    'A process other than execute tried to issue a command: only execute holds TOOLGATE_COMMAND_KEY.',
    'Set TOOLGATE_COMMAND_KEY where execute runs, and only there.',
  ),
  stage_not_running: retriable(
    'the approval API',
    'An approval arrived over HTTP while the confirm stage was not running (starting or stopping).',
    'The client retries (the API answers 503). If it persists, check that the confirm stage started.',
  ),
  internal_error: fatal(
    'any stage',
    'Anything thrown that is not a fault with a catalogued code: a bug, or an error from a library the adapters do not map.',
    'The call ends with an `internal_error` observation and audit event carrying the error. File a bug with the log line.',
  ),
} as const satisfies Record<string, FaultSpec>;

/** One catalogued fault code. */
export type FaultCode = keyof typeof FAULT_CODES;
