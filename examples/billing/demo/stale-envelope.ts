/**
 * Walk-around attempt 7: a recording played back. The stack's admin, holding the integrity key,
 * takes a copy of a real `cleared` envelope (the walk-around's own call's), dates it two hours
 * back and tags it again, as a recording made then would be. The copy names a call the gate has
 * never seen (fresh proposal, request and call ids), so that nothing but its age can stop it:
 * accepted, it would make execute issue a command. Stopped means observed: execute audited
 * `authentication/stale_envelope` for it, and the command topic holds no command for it.
 */
import { readTopicWindow } from '@toolgate/platform';
import {
  INTEGRITY_HEADER,
  integrityTag,
  MESSAGE_SCHEMAS,
  type AuditEvent,
  type ClearedEnvelope,
  type Command,
} from '@toolgate/shared';
import { notStopped, stoppedBy, type Seen, type WalkContext } from './walk-around-context.js';

/** How long ago the recording was made, in ms. */
export const RECORDING_AGE_MS = 2 * 3_600_000;

/** How long execute may take to refuse it, in ms. */
const REFUSAL_TIMEOUT_MS = 30_000;

/** Plays the re-dated copy back and reports what execute did with it. */
export async function staleEnvelopeAttempt(ctx: WalkContext): Promise<Seen> {
  const record = await ctx.cleared.waitFor(
    (r) => (r.value as ClearedEnvelope | undefined)?.runId === ctx.runId,
    'cleared envelope of the walk-around to copy',
    REFUSAL_TIMEOUT_MS,
  );
  const copy = recordedCopy(record.value as ClearedEnvelope, ctx.tag, Date.now());
  const topic = ctx.topics.cleared;
  const subject = `${topic}-value`;
  await ctx.clients.codec.adopt(subject, MESSAGE_SCHEMAS.cleared);
  const value = await ctx.clients.codec.encode(subject, copy);
  const headers = { [INTEGRITY_HEADER]: integrityTag(ctx.keys.integrityKey, topic, value) };
  const sinceMs = Date.now() - 1_000;
  await ctx.adminProducer.send([{ topic, key: copy.runId, value, headers }]);
  await ctx.audit.waitFor(
    (r) => {
      const event = r.value as AuditEvent | undefined;
      return (
        event?.proposalId === copy.proposalId &&
        event.stage === 'authentication' &&
        event.code === 'stale_envelope'
      );
    },
    `authentication/stale_envelope audit event for ${copy.proposalId}`,
    REFUSAL_TIMEOUT_MS,
  );
  const commands = await commandsFor(ctx, copy, sinceMs);
  return commands === 0
    ? stoppedBy('execute audited authentication/stale_envelope; no command issued')
    : notStopped(`execute issued ${commands} command(s) for it`);
}

/** `envelope` as recorded `RECORDING_AGE_MS` before `nowMs`, for a call of its own. */
function recordedCopy(envelope: ClearedEnvelope, tag: string, nowMs: number): ClearedEnvelope {
  const then = new Date(nowMs - RECORDING_AGE_MS).toISOString();
  const proposalId = `${tag}-recorded`;
  const requestId = `req-${tag}-recorded`;
  const context = { ...envelope.context, proposalId, requestId, callId: `call_${tag}_recorded` };
  return { ...envelope, proposalId, requestId, context, receivedAt: then, issuedAt: then };
}

/**
 * Commands for `copy`'s proposal on its tool's topic since `sinceMs`, read as admin up to now: an
 * issued command would have been written in the transaction of the audit event already seen.
 */
async function commandsFor(
  ctx: WalkContext,
  copy: ClearedEnvelope,
  sinceMs: number,
): Promise<number> {
  let count = 0;
  await readTopicWindow(ctx.admin, ctx.clients.codec, {
    topic: ctx.topics.command(copy.tool),
    sinceMs,
    groupPrefix: ctx.settings.config.groupPrefix,
    onRecord: (record) => {
      if ((record.value as Command | undefined)?.context.proposalId === copy.proposalId) count += 1;
    },
  });
  return count;
}
