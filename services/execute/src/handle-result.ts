/**
 * One tool result: decode (quarantine if undecodable) → shape → find the pending command (unknown
 * → audit `unmatched_result`) → its proof, with the key of that command's tool (else audit
 * `forged_result`: nothing changes) and its ids (another key or run → `unmatched_result`) → take
 * the pending command (once) → the result rung with the tool's ceilings → settle the
 * idempotency record with the terminal outcome → publish the observation and audit event, or,
 * when the deadline sweeper ended the command first, record the late result without a second
 * terminal observation.
 *
 * The rung runs on a copy of the pending command (this instance's own when it issued it, see
 * {@link CommandsInFlight}; else one read just before) and the take and the settle are one Redis
 * round trip; the store does it only while Redis holds that very copy and the record is one the
 * gate wrote, and only a copy changed meanwhile takes the two steps.
 *
 * The result message's coordinates are the token of every Redis step (take, settle): a
 * redelivery after a crash takes and settles again as the same taker and settler, and publishes
 * what it owes.
 */
import {
  type Incoming,
  originOf,
  type Outgoing,
  type PendingCommand,
  type Settlement,
  type StageDeps,
} from '@toolgate/platform';
import {
  auditEvent,
  checkResult,
  deriveToolKey,
  PROOF_HEADER,
  verifyToolProof,
  IDEMPOTENCY_RETENTION_SECONDS,
  observationForCheckedResult,
  observationForResult,
  observationForToolError,
  rejecterFor,
  sideEffectDefaults,
  storedOutcomeOf,
  timeoutEnding,
  TOOL_OUTCOME_UNKNOWN,
  type Tool,
  type IdempotencyRecord,
  type MessageChecker,
  type Observation,
  type Rejected,
  type ResultLimits,
  type ToolResult,
} from '@toolgate/shared';
import {
  auditFactsOfPendingCommand,
  messageToken,
  observationIdsOfPending,
  sweepSettler,
} from './pending-command.js';
import type { CommandsInFlight } from './commands-in-flight.js';

/** What handling a result uses of a stage's dependencies. */
export type ResultDeps = Pick<
  StageDeps,
  'idempotency' | 'pendingCommands' | 'outputs' | 'metrics' | 'gate' | 'now'
> & {
  readonly config: Pick<StageDeps['config'], 'commandKey' | 'commandKeysAccepted'>;
};

const rejectResult = rejecterFor('result');
const rejectExecution = rejecterFor('execution');

/** How a result ended its command: the terminal observation, and the refusal when not shown. */
interface Ending {
  readonly observation: Observation;
  readonly rejected?: Rejected<'result'> | Rejected<'execution'>;
}

/**
 * Handles one message of the results topic; `check` validates ToolResult shapes, `inFlight` holds
 * the pending commands this instance issued.
 */
export function createResultHandler(
  deps: ResultDeps,
  check: MessageChecker,
  inFlight: CommandsInFlight,
): (msg: Incoming) => Promise<readonly Outgoing[]> {
  const keysOf = resultKeysOf(deps.config);
  return async (msg) => {
    if (msg.decodeError !== undefined) return quarantined(deps, msg, msg.decodeError);
    const problems = check('results', msg.value);
    if (problems.length > 0) {
      return unmatched(deps, msg, `not a ToolResult: ${problems.join('; ')}`);
    }
    const result = msg.value as ToolResult;
    const issued = inFlight.peek(result.commandId);
    const pending = issued ?? (await deps.pendingCommands.peekPendingCommand(result.commandId));
    if (pending === undefined) return unmatched(deps, msg, NO_PENDING_COMMAND);
    const refused = unproven(deps, msg, result, pending, keysOf(pending.tool));
    if (refused !== undefined) return refused;
    if (issued === undefined) {
      return (await inOneStep(deps, msg, result, pending)) ?? takenThenSettled(deps, msg, result);
    }
    inFlight.take(result.commandId);
    return (await inOneStep(deps, msg, result, issued)) ?? inTwoSteps(deps, msg, result);
  };
}

/**
 * The tool keys a result for `tool` may be proved with: the tool's key under the command key, and
 * under each key still accepted during a rotation. Derived once per tool.
 */
function resultKeysOf(config: ResultDeps['config']): (tool: string) => readonly string[] {
  const masters = [config.commandKey, ...config.commandKeysAccepted].filter(
    (key): key is string => key !== undefined,
  );
  const byTool = new Map<string, readonly string[]>();
  return (tool) => {
    let keys = byTool.get(tool);
    if (keys === undefined) {
      keys = masters.map((master) => deriveToolKey(master, tool));
      byTool.set(tool, keys);
    }
    return keys;
  };
}

/**
 * Why `result` may not end `pending`, as what to publish (an audit event, nothing else), or
 * undefined when it may: its proof must verify with the key of the pending command's tool (else
 * it was written by something that cannot answer for that tool: `forged_result`), and it must name
 * the command's idempotency key and run (else `unmatched_result`).
 */
function unproven(
  deps: ResultDeps,
  msg: Incoming,
  result: ToolResult,
  pending: PendingCommand,
  keys: readonly string[],
): readonly Outgoing[] | undefined {
  const proof = msg.headers[PROOF_HEADER];
  if (verifyToolProof(keys, msg.topic, msg.raw, proof) === undefined) {
    deps.metrics.forgery('result', proof === undefined ? 'no_proof' : 'bad_proof');
    const why = `${proof === undefined ? 'no' : 'a wrong'} ${PROOF_HEADER} for a pending command of ${pending.tool}`;
    const facts = {
      ...auditFactsOfPendingCommand(pending),
      internalDetail: why,
      ...originOf(msg),
    };
    return [deps.outputs.audit(auditEvent({ kind: 'forged_result', ...facts }, deps.now()))];
  }
  if (result.idempotencyKey !== pending.idempotencyKey || result.runId !== pending.runId) {
    const why = `the result names another ${result.runId === pending.runId ? 'idempotency key' : 'run'} than its command`;
    return unmatched(deps, msg, why);
  }
  return undefined;
}

/**
 * Takes the pending command and settles its record in one round trip, on this instance's copy of
 * it; undefined when Redis holds another copy (nothing was done).
 */
async function inOneStep(
  deps: ResultDeps,
  msg: Incoming,
  result: ToolResult,
  issued: PendingCommand,
): Promise<readonly Outgoing[] | undefined> {
  const { now, ending, record } = concluded(deps, result, issued);
  const token = messageToken(msg);
  const retention = IDEMPOTENCY_RETENTION_SECONDS;
  const done = await deps.pendingCommands.takeAndSettle({
    expected: issued,
    takerToken: token,
    record,
    ttlSeconds: retention,
    settlerToken: token,
  });
  if (done.outcome === 'unmatched') return unmatched(deps, msg, NO_PENDING_COMMAND);
  if (done.outcome === 'changed') return undefined;
  return published(deps, msg, result, issued, ending, done, now);
}

/**
 * Reads the pending command, then takes it and settles its record in one step as
 * {@link inOneStep} does; only when Redis changed the command meanwhile, takes it and then settles
 * its record with the outcome the rung made of it. Taking first would drop the command's deadline
 * before a record the gate cannot read fails the settle, and then nothing would end the call.
 */
async function inTwoSteps(
  deps: ResultDeps,
  msg: Incoming,
  result: ToolResult,
): Promise<readonly Outgoing[]> {
  const read = await deps.pendingCommands.peekPendingCommand(result.commandId);
  if (read === undefined) return unmatched(deps, msg, NO_PENDING_COMMAND);
  return (await inOneStep(deps, msg, result, read)) ?? takenThenSettled(deps, msg, result);
}

/** Takes the pending command, then settles its record with the outcome the rung made of it. */
async function takenThenSettled(
  deps: ResultDeps,
  msg: Incoming,
  result: ToolResult,
): Promise<readonly Outgoing[]> {
  // The message's coordinates are both the taker's and the settler's token.
  const token = messageToken(msg);
  const pending = await deps.pendingCommands.takePendingCommand(result.commandId, token);
  if (pending === undefined) return unmatched(deps, msg, NO_PENDING_COMMAND);
  const { now, ending, record } = concluded(deps, result, pending);
  const { tenant, idempotencyKey: key } = pending;
  const retention = IDEMPOTENCY_RETENTION_SECONDS;
  const settlement = await deps.idempotency.settleRecord(tenant, key, record, retention, token);
  return published(deps, msg, result, pending, ending, settlement, now);
}

const NO_PENDING_COMMAND = 'no pending command of this gate';

/** What the result rung makes of `result` for `pending` now, and the record that ends the call. */
function concluded(deps: ResultDeps, result: ToolResult, pending: PendingCommand) {
  const now = deps.now();
  const ending = endingOf(deps, result, pending, now);
  return { now, ending, record: recordOf(pending, ending) };
}

/** The record that ends `pending`'s call with `ending`. */
function recordOf(pending: PendingCommand, ending: Ending): IdempotencyRecord {
  return {
    digest: pending.digest,
    state: 'done',
    token: pending.token,
    commandId: pending.commandId,
    outcome: storedOutcomeOf(ending.observation),
  };
}

/**
 * What settling the record with the result's outcome publishes: the terminal observation and
 * `result` audit when this result settled it, else (the deadline sweeper was first) a
 * `late_result`, after recording the real outcome for a retry.
 */
async function published(
  deps: ResultDeps,
  msg: Incoming,
  result: ToolResult,
  pending: PendingCommand,
  ending: Ending,
  settlement: Settlement,
  now: Date,
): Promise<readonly Outgoing[]> {
  const facts = { ...auditFactsOfPendingCommand(pending), ...originOf(msg) };
  if (!settlement.settled) {
    // The deadline sweeper ended the command first: the agent was told the outcome is unknown,
    // and keeps that one terminal observation. The real outcome goes on the record, so that a
    // retry of the same call replays what happened rather than "unknown".
    const previous = settlement.previous;
    const swept = previous?.state === 'unknown' && previous.token === pending.token;
    const { tenant, idempotencyKey: key } = pending;
    const retention = IDEMPOTENCY_RETENTION_SECONDS;
    // The record keeps the sweep's mark: a sweep that settled it but failed before publishing
    // claims the command again after its lease and must still be told it settled it.
    const settler = sweepSettler(pending.commandId);
    const late = recordOf(pending, ending);
    if (swept) await deps.idempotency.putRecord(tenant, key, late, retention, settler);
    const ended = previous?.state ?? 'no record';
    const detail = `${result.status} result after the call ended (${ended}); ${swept ? 'recorded' : 'not recorded'}`;
    const event = { kind: 'late_result', ...facts, internalDetail: detail } as const;
    return [deps.outputs.audit(auditEvent(event, now))];
  }
  deps.metrics.decision(ending.rejected ?? { disposition: 'execute', stage: 'result' });
  const rejected = ending.rejected === undefined ? {} : { rejected: ending.rejected };
  return [
    ...deps.outputs.observation(ending.observation, pending.tenant),
    deps.outputs.audit(auditEvent({ kind: 'result', ...rejected, ...facts }, now)),
  ];
}

/** The terminal observation a result makes of its command. */
function endingOf(deps: ResultDeps, result: ToolResult, p: PendingCommand, now: Date): Ending {
  const ids = observationIdsOfPending(p);
  const tool = deps.gate.registry.get(p.tool);
  if (tool === undefined) {
    // The tool left the deployment while its command ran: nothing says what its output may be.
    const refused = rejectResult('invalid_output', undefined, `tool ${p.tool} is not loaded here`);
    return { observation: observationForCheckedResult(ids, refused, now), rejected: refused };
  }
  const limits: ResultLimits = {
    maxBytes: tool.resultMaxBytes,
    ...(tool.validateOutput === undefined ? {} : { validateOutput: tool.validateOutput }),
  };
  if (result.status === 'error') {
    const error = result.error ?? { code: 'unknown', message: '' };
    if (error.code === TOOL_OUTCOME_UNKNOWN || isTimeoutOfRead(error.code, tool)) {
      // The tool cannot say whether it acted (a definite error would be replayed to a retry), or
      // a read stopped at its deadline: the call ends as its class ends a timeout.
      const detail = `the tool did not finish in time (${error.code}): ${error.message}`;
      return timeoutEnding(tool.spec.sideEffect, ids, now, detail);
    }
    const rejected = rejectExecution('tool_error', undefined, `${error.code}: ${error.message}`);
    // The tool's own words reach the model only through the result rung, like any output.
    const shown = checkResult(error.message, { maxBytes: tool.resultMaxBytes });
    const observation = observationForToolError(ids, shown.ok ? shown.value : undefined, now);
    return { observation, rejected };
  }
  const checked = checkResult(result.output, limits);
  if (!checked.ok) {
    return { observation: observationForCheckedResult(ids, checked, now), rejected: checked };
  }
  return { observation: observationForResult(ids, checked.value, now) };
}

/**
 * A worker's `deadline_exceeded` for a tool whose class lets a timeout be retried: reported as that
 * timeout, not as a tool error, so that the agent is told it may propose the call again. For a
 * write it stays a tool error (the worker says the change was not made).
 */
function isTimeoutOfRead(code: string, tool: Tool): boolean {
  return (
    code === DEADLINE_EXCEEDED && sideEffectDefaults(tool.spec.sideEffect).onTimeout === 'retry'
  );
}

/** The worker's error code for a command it stopped, or did not start, at its deadline. */
const DEADLINE_EXCEEDED = 'deadline_exceeded';

/** Undecodable bytes on results: kept on the quarantine topic, never read as a result. */
function quarantined(deps: ResultDeps, msg: Incoming, why: string): readonly Outgoing[] {
  const raw = msg.raw ?? Buffer.alloc(0);
  const event = { kind: 'quarantined', raw, internalDetail: why, ...originOf(msg) } as const;
  return [
    deps.outputs.quarantine(raw, msg.headers),
    deps.outputs.audit(auditEvent(event, deps.now())),
  ];
}

/** A result that names no pending command of this gate (or is no result): audited, dropped. */
function unmatched(deps: ResultDeps, msg: Incoming, why: string): readonly Outgoing[] {
  const value = msg.value as Partial<Record<keyof ToolResult, unknown>> | undefined;
  // What the writer claims, when the audit event can carry it: the audit schema takes no empty id.
  const claimed = (name: 'commandId' | 'idempotencyKey') => {
    const text = value?.[name];
    return typeof text === 'string' && text !== '' ? text : undefined;
  };
  const facts = {
    commandId: claimed('commandId'),
    idempotencyKey: claimed('idempotencyKey'),
    internalDetail: why,
    ...originOf(msg),
  };
  return [deps.outputs.audit(auditEvent({ kind: 'unmatched_result', ...facts }, deps.now()))];
}
