/**
 * Walk-around attempt 4: refund commands written straight to the command topic by someone the
 * broker lets through (the stack's admin stands in for a broker that lets anything through), each
 * one the worker would run if it trusted the topic: a refund of 10.00 EUR of a payment copy of the
 * walk-around's own, at the payment's live version. Without a proof, proved with another tool's
 * key, or proved and then altered, the worker must drop it. Stopped means observed: the worker's
 * `toolgate_refused_forgeries_total` counted it, its ledger holds nothing for the command's key,
 * the results topic holds no result for it, and the payment is as it was.
 */
import { readTopicWindow, type ReadRecord } from '@toolgate/platform';
import {
  deriveToolKey,
  MESSAGE_SCHEMAS,
  PROOF_HEADER,
  toolProof,
  type Command,
  type ResolvedObject,
} from '@toolgate/shared';
import { refundPayment } from '../tools.js';
import { copyOf } from './demo-objects.js';
import { scrapeMetric } from './metric-value.js';
import { waitUntil } from './wait-until.js';
import {
  attempt,
  notStopped,
  stoppedBy,
  type Seen,
  type WalkContext,
} from './walk-around-context.js';
import type { AttemptLine } from './walk-around-table.js';

/** How the worker says why it dropped a command (the metric's `reason`). */
type DropReason = 'no_proof' | 'bad_proof';

/** One forged command as written: its bytes, headers, and the tenants whose ledger it names. */
interface Forgery {
  readonly command: Command;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly reason: DropReason;
  readonly tenants: readonly string[];
}

/** How long the worker may take to drop a command, in ms. */
const DROP_TIMEOUT_MS = 20_000;

/** The three forged refunds, one line each. */
export async function forgedCommandAttempts(ctx: WalkContext): Promise<AttemptLine[]> {
  const payment = copyOf('pay_11', `pay_${ctx.settings.runTag}w`);
  await ctx.clients.objects.seed([payment]);
  const sinceMs = Date.now() - 1_000;
  const variants = [
    ['4a', 'a refund command without a proof', unproved],
    ['4b', "a refund command proved with search's key", provedAsSearch],
    ['4c', 'a refund command, proof valid, tenant then changed', alteredAfterProof],
  ] as const;
  const lines: AttemptLine[] = [];
  for (const [no, what, forge] of variants) {
    lines.push(
      await attempt(no, what, 'admin', async () => {
        const forgery = await forge(ctx, refundOf(ctx, no, payment));
        return dropped(ctx, forgery, payment, sinceMs);
      }),
    );
  }
  return lines;
}

/** Writes `forgery`, waits for the worker to count it, then checks that nothing came of it. */
async function dropped(
  ctx: WalkContext,
  forgery: Forgery,
  payment: ResolvedObject,
  sinceMs: number,
): Promise<Seen> {
  const count = () => droppedCount(ctx, forgery.reason);
  const before = await count();
  const { command } = forgery;
  await ctx.adminProducer.send([
    {
      topic: ctx.topics.command(command.tool),
      key: command.idempotencyKey,
      value: forgery.value,
      headers: forgery.headers,
    },
  ]);
  const after = await waitUntil(
    async () => ((await count()) > before ? true : undefined),
    `drop of the command counted by the worker (${forgery.reason})`,
    DROP_TIMEOUT_MS,
  ).catch(() => false);
  const traces = await tracesOf(ctx, forgery, payment, sinceMs);
  if (traces.length > 0) return notStopped(traces.join('; '));
  if (!after) return notStopped('the worker counted no drop and left no trace');
  return stoppedBy(
    `worker dropped it (${forgery.reason}): no ledger entry, no result, payment unchanged`,
  );
}

/** What the command left behind: ledger entries, results, a changed payment. None when dropped. */
async function tracesOf(
  ctx: WalkContext,
  forgery: Forgery,
  payment: ResolvedObject,
  sinceMs: number,
): Promise<string[]> {
  const { command } = forgery;
  const { ledger, objects } = ctx.clients;
  const traces: string[] = [];
  for (const tenant of forgery.tenants) {
    const entry = await ledger.ledgerGet(tenant, command.idempotencyKey);
    if (entry !== undefined) traces.push(`the worker's ledger holds the key for ${tenant}`);
  }
  const results = await resultsOf(ctx, command.commandId, sinceMs);
  if (results > 0) traces.push(`${results} result(s) on ${ctx.topics.results}`);
  const live = await objects.load(payment.tenant, { type: payment.type, id: payment.id });
  if (live?.version !== payment.version) traces.push(`the payment is at version ${live?.version}`);
  return traces;
}

/** How many results for `commandId` the results topic holds since `sinceMs`, as admin. */
async function resultsOf(ctx: WalkContext, commandId: string, sinceMs: number): Promise<number> {
  const found: ReadRecord[] = [];
  await readTopicWindow(ctx.admin, ctx.clients.codec, {
    topic: ctx.topics.results,
    sinceMs,
    groupPrefix: ctx.settings.config.groupPrefix,
    onRecord: (record) => {
      if ((record.value as { commandId?: unknown } | undefined)?.commandId === commandId) {
        found.push(record);
      }
    },
  });
  return found.length;
}

/** The worker's count of commands dropped for `reason`, from its `/metrics`. */
function droppedCount(ctx: WalkContext, reason: DropReason): Promise<number> {
  return scrapeMetric(
    `${ctx.settings.urlOf('worker')}/metrics`,
    'toolgate_refused_forgeries_total',
    {
      message: 'command',
      reason,
    },
  );
}

/** A refund of 10.00 EUR of `payment` by alice, as execute would issue it after her approval. */
function refundOf(ctx: WalkContext, no: string, payment: ResolvedObject): Command {
  const id = `${ctx.tag}-${no}`;
  const now = Date.now();
  return {
    commandId: `cmd-${id}`,
    idempotencyKey: `key-${id}`,
    tool: refundPayment.name,
    toolVersion: refundPayment.version,
    args: { payment_id: payment.id, amount_cents: 1_000 },
    context: {
      subject: 'alice',
      tenant: payment.tenant,
      requestId: `req-${id}`,
      runId: ctx.runId,
      proposalId: id,
      callId: `call_${id}`,
    },
    objects: [{ type: payment.type, id: payment.id, version: payment.version }],
    confirmedBy: 'alice',
    deadline: new Date(now + 60_000).toISOString(),
    issuedAt: new Date(now).toISOString(),
  };
}

/** `command` in the wire format, under the schema the gate registered for its topic. */
async function encoded(ctx: WalkContext, command: Command): Promise<Buffer> {
  const subject = `${ctx.topics.command(command.tool)}-value`;
  await ctx.clients.codec.adopt(subject, MESSAGE_SCHEMAS.commands);
  return ctx.clients.codec.encode(subject, command);
}

/** The proof of `value` on `command`'s topic under `tool`'s key (derived from the command key). */
function proofOf(ctx: WalkContext, command: Command, tool: string, value: Buffer): string {
  const key = deriveToolKey(ctx.keys.commandKey, tool);
  return toolProof(key, ctx.topics.command(command.tool), value);
}

async function unproved(ctx: WalkContext, command: Command): Promise<Forgery> {
  const value = await encoded(ctx, command);
  return { command, value, headers: {}, reason: 'no_proof', tenants: [command.context.tenant] };
}

async function provedAsSearch(ctx: WalkContext, command: Command): Promise<Forgery> {
  const value = await encoded(ctx, command);
  const headers = { [PROOF_HEADER]: proofOf(ctx, command, 'search', value) };
  return { command, value, headers, reason: 'bad_proof', tenants: [command.context.tenant] };
}

async function alteredAfterProof(ctx: WalkContext, command: Command): Promise<Forgery> {
  const proof = proofOf(ctx, command, command.tool, await encoded(ctx, command));
  const altered = { ...command, context: { ...command.context, tenant: 'globex' } };
  return {
    command: altered,
    value: await encoded(ctx, altered),
    headers: { [PROOF_HEADER]: proof },
    reason: 'bad_proof',
    tenants: [command.context.tenant, altered.context.tenant],
  };
}
