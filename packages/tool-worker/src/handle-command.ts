/**
 * One record of a command topic: verify its proof → decode → check → claim the idempotency key in the ledger (before
 * any side effect) → replay a recorded result, or run the handler within the command's deadline
 * and record its result → the ToolResult to publish on `results`, keyed by run. The stage loop
 * publishes it and commits the command's offset in one transaction.
 *
 * The claim token is the command id: a redelivery of the same command (the worker crashed after
 * claiming, before recording) resumes and runs the handler again, with `attempt` > 1. Handlers
 * must therefore be idempotent on their own, by compare-and-set on the command's object versions.
 * Once a result is recorded, no delivery of that command runs the handler again.
 *
 * Each delivery claims under its own holder id with a lease, renewed while its handler runs
 * (docs/decisions/0010): a delivery that finds the same command running under another holder's live
 * lease runs nothing and is delivered again later (`tool_call_running`), and a delivery whose lease
 * was taken over while it was paused has its handler's signal aborted.
 */
import { randomUUID } from 'node:crypto';
import {
  commandDigest,
  PROOF_HEADER,
  toolProof,
  verifyToolProof,
  type Command,
  type ToolKeys,
  type ToolResult,
} from '@toolgate/shared';
import type { AdapterLogger } from '@toolgate/platform/adapter-logger';
import { Fault, isRetriable } from '@toolgate/platform/fault';
import type { Metrics } from '@toolgate/platform/metrics';
import type { Ledger, LedgerClaimant } from '@toolgate/platform/redis';
import type { EncodedOutgoing, Incoming } from '@toolgate/platform/stage-loop';
import type { CommandChecker, ResultIds } from './check-command.js';
import { keepLease } from './lease-keeper.js';
import { runWithDeadline, type RunEnd } from './run-with-deadline.js';
import type { ToolHandler, ToolHandlers, ToolOutcome } from './tool-handler.js';
import { checkOutcome, readdressed, resultFor, workerError } from './tool-results.js';

/** What the command handler works with. */
export interface CommandHandlerDeps {
  /** Where the worker claims keys and records results. */
  readonly ledger: Pick<Ledger, 'ledgerClaim' | 'ledgerPut' | 'ledgerRenew' | 'ledgerRelease'>;
  readonly tools: ToolHandlers;
  /** The tool of each subscribed command topic (full name). */
  readonly toolOfTopic: ReadonlyMap<string, string>;
  /** Full name of the results topic. */
  readonly resultsTopic: string;
  /** The keys of the worker's tools: commands must prove themselves with them, results are proved. */
  readonly toolKeys: ToolKeys;
  /** Counts the commands that did not prove their origin. */
  readonly metrics: Pick<Metrics, 'forgery'>;
  readonly checker: CommandChecker;
  readonly logger: AdapterLogger;
  now(): Date;
  /** How long ledger entries live, in seconds (≥ 24 h). */
  readonly ledgerTtlSeconds: number;
  /** The lease a delivery holds on its running entry, in ms; renewed every third of it. */
  readonly leaseMs: number;
  /** How long an aborted handler may take to settle, in ms. */
  readonly abortGraceMs: number;
  /** Ceiling on a result's output, in bytes of JSON. */
  readonly maxOutputBytes: number;
}

/** Handles one command record; throws only a retriable Fault (Redis down: deliver it again). */
export function createCommandHandler(
  deps: CommandHandlerDeps,
): (msg: Incoming) => Promise<readonly EncodedOutgoing[]> {
  const { logger } = deps;
  return async (msg) => {
    const where = { topic: msg.topic, partition: msg.partition, offset: msg.offset };
    const tool = deps.toolOfTopic.get(msg.topic) ?? '';
    // First, before the record is even read: did execute issue it, for this very tool? Anything
    // else is dropped unanswered (an answer would be proved with this tool's key, and could end
    // a genuine call under ids copied from it), counted, and logged without its arguments.
    const key = verifyToolProof(
      deps.toolKeys.get(tool) ?? [],
      msg.topic,
      msg.raw,
      msg.headers[PROOF_HEADER],
    );
    if (key === undefined) {
      const reason = msg.headers[PROOF_HEADER] === undefined ? 'no_proof' : 'bad_proof';
      deps.metrics.forgery('command', reason);
      logger.warn(
        { ...where, tool, reason },
        'dropped a command that execute did not issue for this tool',
      );
      return [];
    }
    const publish = (result: ToolResult): EncodedOutgoing => ({
      topic: deps.resultsTopic,
      key: result.runId,
      value: result,
      sign: (bytes) => ({ [PROOF_HEADER]: toolProof(key, deps.resultsTopic, bytes) }),
    });
    if (msg.decodeError !== undefined) {
      logger.warn({ ...where, reason: msg.decodeError }, 'skipping an undecodable command record');
      return [];
    }
    const checked = deps.checker(msg.value, tool);
    if (!checked.ok) {
      const { ids, problems } = checked;
      logger.warn(
        { ...where, commandId: ids?.commandId, problems },
        ids === undefined
          ? 'skipping an invalid command without ids to answer'
          : 'answering an invalid command with an error result',
      );
      if (ids === undefined) return [];
      return [publish(resultFor(ids, workerError('invalid_command'), deps.now()))];
    }
    return [publish(await settle(checked.command, deps))];
  };
}

/** The ToolResult for a valid command: replayed, refused, or run now and recorded. */
async function settle(command: Command, deps: CommandHandlerDeps): Promise<ToolResult> {
  const { ledger, logger, ledgerTtlSeconds: ttl } = deps;
  const ids = idsOf(command);
  const tenant = command.context.tenant;
  const key = command.idempotencyKey;
  const claimant = claimantOf(command, deps.now());
  const log = { commandId: command.commandId, tool: command.tool, idempotencyKey: key };
  const claim = await ledger.ledgerClaim(tenant, key, claimant, ttl, deps.leaseMs);
  switch (claim.outcome) {
    case 'running':
      logger.info(
        { ...log, heldBy: claim.holder, leaseUntil: new Date(claim.leaseUntil).toISOString() },
        'another delivery of the command is running it; delivering it again later',
      );
      throw stillRunning(command);
    case 'done':
      logger.info({ ...log, recordedBy: claim.token }, 'replaying the recorded result');
      return claim.result.commandId === command.commandId
        ? claim.result
        : readdressed(claim.result, ids);
    case 'conflict':
      logger.warn({ ...log, heldBy: claim.token }, 'the key is recorded for another command');
      return resultFor(ids, workerError('idempotency_conflict'), deps.now());
    case 'busy':
      logger.warn({ ...log, heldBy: claim.token }, 'another command with the key is running');
      return resultFor(ids, workerError('in_flight'), deps.now());
    case 'claimed':
    case 'resumed': {
      const attempt = claim.outcome === 'claimed' ? 1 : claim.attempts;
      if (attempt > 1) {
        logger.warn({ ...log, attempt }, 'resuming a command an earlier delivery did not finish');
      }
      const run = { command, attempt, claimant };
      const result = resultFor(ids, await releasingOnFault(run, deps), deps.now());
      const put = await ledger.ledgerPut(tenant, key, claimant, result, ttl);
      if (put.outcome !== 'foreign') return put.result;
      logger.warn({ ...log, heldBy: put.token }, 'the key was claimed meanwhile; not recorded');
      return result;
    }
  }
}

/**
 * Runs the handler unless the deadline has passed; never throws but a retriable Fault. Past the
 * deadline, `deadline_exceeded` says the change was not made, so it is answered only when that is
 * known: a first delivery not run, or a handler that stopped at the signal; else `outcome_unknown`.
 */
async function execute(run: Run, deps: CommandHandlerDeps): Promise<ToolOutcome> {
  const { command, attempt } = run;
  const { logger } = deps;
  const log = { commandId: command.commandId, tool: command.tool, attempt };
  const handler = handlerOf(command, deps.tools);
  const deadline = new Date(command.deadline);
  const msLeft = deadline.getTime() - deps.now().getTime();
  if (msLeft <= 0) {
    logger.info({ ...log, deadline: command.deadline }, 'not running: past the deadline');
    // A resumed command's earlier delivery ran the handler: its change may have been made.
    return workerError(attempt > 1 ? 'outcome_unknown' : 'deadline_exceeded');
  }
  const now = () => deps.now();
  const context = (signal: AbortSignal) => ({ signal, deadline, attempt, now });
  const lease = keepLease({
    renew: () =>
      deps.ledger.ledgerRenew(
        command.context.tenant,
        command.idempotencyKey,
        run.claimant,
        deps.leaseMs,
      ),
    leaseMs: deps.leaseMs,
    onError: (error) =>
      logger.warn({ ...log, err: describeError(error) }, 'could not renew the lease; retrying'),
    onLost: (holder) =>
      logger.warn(
        { ...log, heldBy: holder },
        'another delivery took the command over while this one was paused; aborting the handler',
      ),
  });
  try {
    const end = await runWithDeadline((signal) => handler(command, context(signal)), {
      msLeft,
      graceMs: deps.abortGraceMs,
      stop: lease.signal,
    });
    // Stopped by the lost lease: the delivery holding the command now answers it; record nothing.
    if (lease.signal.aborted && end.kind !== 'answered') throw stillRunning(command);
    return outcomeOf(end, log, deps);
  } finally {
    lease.stop();
  }
}

/**
 * {@link execute}, ending the lease when it throws (a retriable fault: nothing is recorded), so
 * that the redelivery, on this worker or another, resumes at once rather than after the lease.
 * Best effort: if Redis is what failed, the lease simply runs out.
 */
async function releasingOnFault(run: Run, deps: CommandHandlerDeps): Promise<ToolOutcome> {
  try {
    return await execute(run, deps);
  } catch (error) {
    const { command } = run;
    await deps.ledger
      .ledgerRelease(command.context.tenant, command.idempotencyKey, run.claimant)
      .catch(() => undefined);
    throw error;
  }
}

/** One delivery's run of a command it claimed. */
interface Run {
  readonly command: Command;
  readonly attempt: number;
  readonly claimant: LedgerClaimant;
}

/** The retriable fault of a command another delivery is running. */
function stillRunning(command: Command): Fault {
  return new Fault(
    'tool_call_running',
    `command ${command.commandId} is being run by another delivery that holds its lease`,
  );
}

/** What a run's end reports; rethrows a retriable Fault the handler threw in time. */
function outcomeOf(
  end: RunEnd<ToolOutcome>,
  log: Readonly<Record<string, unknown>>,
  deps: CommandHandlerDeps,
): ToolOutcome {
  const { logger } = deps;
  switch (end.kind) {
    case 'answered': {
      const checked = checkOutcome(end.value, deps.maxOutputBytes);
      if (checked.problem !== undefined) {
        logger.warn({ ...log, problem: checked.problem }, 'the handler answered invalid output');
      }
      return checked.outcome;
    }
    case 'threw':
      if (end.aborted && isRetriable(end.error)) {
        // Not a stop at the signal: a dependency failed, maybe after the change was made, and
        // delivering it again past the deadline would not run the handler to find out.
        logger.warn(
          { ...log, err: describeError(end.error) },
          'the handler faulted after the deadline; its effect is unknown',
        );
        return workerError('outcome_unknown');
      }
      if (end.aborted) {
        logger.info(log, 'the handler stopped at the deadline');
        return workerError('deadline_exceeded');
      }
      // Redis or another dependency is down: record nothing, let the loop deliver it again.
      if (isRetriable(end.error)) throw end.error;
      logger.error({ ...log, err: describeError(end.error) }, 'the handler threw');
      return workerError('handler_error');
    case 'abandoned':
      logger.warn(log, 'the handler ignored the deadline and was abandoned; its effect is unknown');
      return workerError('outcome_unknown');
  }
}

function handlerOf(command: Command, tools: ToolHandlers): ToolHandler {
  const handler = tools[command.tool];
  // The worker subscribes to the topics of its handlers only, and the check ties tool to topic.
  if (handler === undefined) throw new Error(`no handler for tool ${command.tool}`);
  return handler;
}

function idsOf(command: Command): ResultIds {
  const { commandId, idempotencyKey } = command;
  return { commandId, idempotencyKey, runId: command.context.runId };
}

function claimantOf(command: Command, now: Date): LedgerClaimant {
  const digest = commandDigest({
    tool: command.tool,
    toolVersion: command.toolVersion,
    args: command.args,
    objects: command.objects,
    tenant: command.context.tenant,
  });
  return {
    token: command.commandId,
    digest,
    tool: command.tool,
    claimedAt: now.toISOString(),
    // Per delivery: tells this delivery's lease from another delivery's of the same command.
    holder: randomUUID(),
  };
}

/** The error's name and first line: enough to find it, no stack. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).split('\n', 1)[0] ?? '';
  return `${error.name}: ${error.message.split('\n', 1)[0] ?? ''}`;
}
