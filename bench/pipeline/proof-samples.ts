/**
 * The records whose proofs the proof-cost line times: the mix run once through the gate's ladder
 * in-process (bench/core's billing bench), and each answer turned into what the gate and the
 * no-op worker would write for it: the Command execute issues, the ToolResult the worker answers,
 * and the observations the agent reads (a pending one first for a call that waits for a person),
 * each encoded in the registry's wire format on its topic under `topicPrefix`.
 */
import {
  createEvaluationState,
  evaluate,
  observationForPending,
  observationForRefusal,
  observationForResult,
  wrapToolOutput,
  type Evaluation,
  type ObservationIds,
  type Refusal,
} from '@toolgate/shared';
import { gateTopics, type GateTopics } from '@toolgate/platform';
import { resultFor, toolOk } from '@toolgate/tool-worker';
import type { MixEntry } from '../core/build-mix.js';
import { arrivalsOf, createBillingBench } from '../core/create-billing-bench.js';
import type { ProofRecord, ProofSamples } from './proof-cost.js';
import { tenantOf } from './traffic.js';

/** The no-op worker's output, as the gate shows it to the model. */
const SHOWN = { content: wrapToolOutput(JSON.stringify({ done: true })), withheld: false };

/** Bytes as the codec writes them: magic byte 0, a 4-byte schema id, the JSON. */
function wireBytes(value: unknown): Buffer {
  return Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), Buffer.from(JSON.stringify(value))]);
}

const recordOf = (topic: string, value: unknown): ProofRecord => ({
  topic,
  bytes: wireBytes(value),
});

interface Collected {
  readonly commands: ProofRecord[];
  readonly results: ProofRecord[];
  readonly observations: ProofRecord[];
}

/** What the gate and the worker write for one answer of the ladder. */
function collect(into: Collected, t: GateTopics, entry: MixEntry, e: Evaluation, now: Date) {
  const p = entry.proposal;
  const ids: ObservationIds = { proposalId: p.proposalId, runId: p.runId, requestId: p.requestId };
  const observation = (value: unknown) =>
    into.observations.push(recordOf(t.observationsOf(tenantOf(entry.user)), value));
  switch (e.kind) {
    case 'execute': {
      const c = e.command;
      if (!e.replay) {
        into.commands.push(recordOf(t.command(c.tool), c));
        const ids = {
          commandId: c.commandId,
          idempotencyKey: c.idempotencyKey,
          runId: c.context.runId,
        };
        into.results.push(recordOf(t.results, resultFor(ids, toolOk({ done: true }), now)));
      }
      observation(observationForResult(ids, SHOWN, now, { replay: e.replay }));
      return;
    }
    case 'confirm': {
      const expiresAt = new Date(now.getTime() + 600_000).toISOString();
      const confirmation = { confirmationId: `conf_${e.digest.slice(0, 32)}`, expiresAt };
      observation(observationForPending(ids, confirmation, now));
      observation(observationForResult(ids, SHOWN, now));
      return;
    }
    case 'refused': {
      const refusal: Refusal = {
        ok: false,
        rejected: e.rejected,
        ...(e.repair === undefined ? {} : { repair: e.repair }),
      };
      observation(observationForRefusal(ids, refusal, now));
      return;
    }
  }
}

/** The records of one pass of `mix` through the ladder, on the topics under `topicPrefix`. */
export async function proofSamples(
  mix: readonly MixEntry[],
  topicPrefix: string,
): Promise<ProofSamples> {
  const bench = await createBillingBench();
  const arrivals = arrivalsOf(mix);
  const state = createEvaluationState();
  const t = gateTopics(topicPrefix);
  const into: Collected = { commands: [], results: [], observations: [] };
  for (const [i, entry] of mix.entries()) {
    const now = arrivals[i] ?? new Date();
    const input = { session: bench.tokens[entry.user], proposal: entry.proposal };
    collect(into, t, entry, await evaluate(input, bench.gate, state, now), now);
  }
  return into;
}
