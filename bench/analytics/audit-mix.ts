/**
 * The audit events the gate writes for the core benchmark's mix of proposals (bench/core), as the
 * stages write them: an executed call gets `command_issued` (execute) and `result` (its results
 * half); a call that waits for a person `pending_confirmation`, then `cleared` on approval, then
 * those two; a client retry of a settled write one `replay`; a refusal one `rejected` from the
 * rung that refused. Validate, authorize and confirm write no event for a call they pass on (the
 * `validated`, `authorized` kinds exist, but no stage writes them), so the audit topic carries
 * fewer events than stage decisions. Pure and seeded: the same seed gives the same events.
 */
import {
  auditEvent,
  rejecterFor,
  type AnyRejected,
  type AuditEvent,
  type AuditInput,
} from '@toolgate/shared';
import { MIX_WEIGHTS, weighted, type Label } from '../core/build-mix.js';
import { seededRandom, type SeededRandom } from '../core/seeded-random.js';

/** The gate's median saturation throughput on this machine (bench/README.md), proposals/s. */
export const GATE_SATURATION_PROPOSALS_PER_S = 413;

/** What the audit trail of one proposal looks like, by the mix label it was drawn as. */
type Trail =
  | { readonly kind: 'executed'; readonly tool: string }
  | { readonly kind: 'confirmed'; readonly tool: string }
  | { readonly kind: 'replayed'; readonly tool: string }
  | { readonly kind: 'refused'; readonly tool: string; readonly refusal: Refusal };

type Refusal =
  | 'invalid_json'
  | 'unknown_tool'
  | 'missing_field'
  | 'empty_query'
  | 'not_found'
  | 'not_authorized';

/** Each mix label's trail: the tool it names and what the gate decides about it. */
const TRAILS: Readonly<Record<Label, Trail>> = {
  search: { kind: 'executed', tool: 'search' },
  calculate: { kind: 'executed', tool: 'calculate' },
  final: { kind: 'executed', tool: 'final' },
  approve_small: { kind: 'executed', tool: 'approve_invoice' },
  write_retry: { kind: 'replayed', tool: 'approve_invoice' },
  refund: { kind: 'confirmed', tool: 'refund_payment' },
  send_email: { kind: 'confirmed', tool: 'send_email' },
  malformed_json: { kind: 'refused', tool: 'search', refusal: 'invalid_json' },
  unknown_tool: { kind: 'refused', tool: 'get_weather', refusal: 'unknown_tool' },
  missing_field: { kind: 'refused', tool: 'approve_invoice', refusal: 'missing_field' },
  empty_query: { kind: 'refused', tool: 'search', refusal: 'empty_query' },
  other_tenant: { kind: 'refused', tool: 'approve_invoice', refusal: 'not_found' },
  viewer_write: { kind: 'refused', tool: 'send_email', refusal: 'not_authorized' },
};

/** Audit events written for one proposal of each trail kind. */
const EVENTS_PER_TRAIL: Readonly<Record<Trail['kind'], number>> = {
  executed: 2,
  confirmed: 4,
  replayed: 1,
  refused: 1,
};

/**
 * Audit events per proposal of a mix with these label weights: the weighted mean of each label's
 * trail length. The core mix's weights give 1.92.
 */
export function auditEventsPerProposal(weights: Readonly<Record<Label, number>> = MIX_WEIGHTS) {
  const entries = Object.entries(weights) as [Label, number][];
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  if (!(total > 0)) throw new RangeError('auditEventsPerProposal: the weights sum to nothing');
  const events = entries.reduce((sum, [l, w]) => sum + w * EVENTS_PER_TRAIL[TRAILS[l].kind], 0);
  return events / total;
}

/** The audit events/s the gate writes at its saturation throughput, rounded to a whole number. */
export function gateSaturationAuditRate(): number {
  return Math.round(GATE_SATURATION_PROPOSALS_PER_S * auditEventsPerProposal());
}

/** Tenants of the generated load and their shares (one large, a few middling, a long tail). */
export const MIX_TENANTS: Readonly<Record<string, number>> = {
  acme: 30,
  globex: 20,
  initech: 15,
  umbrella: 15,
  hooli: 10,
  stark: 5,
  wayne: 5,
};

/** Proposals of one run before the next run of the same principal starts. */
const PROPOSALS_PER_RUN = 12;
/** Principals per tenant. */
const PRINCIPALS_PER_TENANT = 8;

/** Draws proposals and returns the audit events the gate writes for each. */
export interface AuditMix {
  /** The audit trail of the next proposal, stamped `at`; one to four events, in order. */
  nextProposal(at: Date): AuditEvent[];
  /** At least `count` events (whole proposals), stamped `at`. */
  nextEvents(count: number, at: Date): AuditEvent[];
}

/** A seeded generator of the audit events of the core mix, across {@link MIX_TENANTS}. */
export function createAuditMix(seed: number): AuditMix {
  const r = seededRandom(seed);
  const runs = new Map<string, { id: string; left: number }>();
  let n = 0;
  const runOf = (tenant: string, subject: string): string => {
    const key = `${tenant}/${subject}`;
    const run = runs.get(key);
    if (run !== undefined && run.left > 0) {
      run.left -= 1;
      return run.id;
    }
    const id = `run-${tenant}-${n}`;
    runs.set(key, { id, left: PROPOSALS_PER_RUN - 1 });
    return id;
  };
  const nextProposal = (at: Date): AuditEvent[] => {
    n += 1;
    const label = weighted(r, MIX_WEIGHTS);
    const tenant = weighted(r, MIX_TENANTS);
    const subject = `user-${r.int(1, PRINCIPALS_PER_TENANT)}@${tenant}`;
    const facts = {
      tenant,
      subject,
      runId: runOf(tenant, subject),
      proposalId: `p-${seed}-${n}`,
      requestId: `req-${n}`,
      callId: `call-${n}`,
    };
    return trailOf(TRAILS[label], facts, r).map((input) => auditEvent(input, at));
  };
  return {
    nextProposal,
    nextEvents(count, at) {
      const out: AuditEvent[] = [];
      while (out.length < count) out.push(...nextProposal(at));
      return out;
    },
  };
}

interface Facts {
  readonly tenant: string;
  readonly subject: string;
  readonly runId: string;
  readonly proposalId: string;
  readonly requestId: string;
  readonly callId: string;
}

/** The refusal a rung writes for `code`, as the stage would. */
function refusalOf(code: Refusal): AnyRejected {
  switch (code) {
    case 'invalid_json':
      return rejecterFor('representation')(code, undefined, 'bench');
    case 'unknown_tool':
    case 'missing_field':
      return rejecterFor('schema')(code, undefined, 'bench');
    case 'empty_query':
      return rejecterFor('semantics')(code, undefined, 'bench');
    case 'not_found':
      return rejecterFor('resolution')(code, undefined, 'bench');
    case 'not_authorized':
      return rejecterFor('authorization')(code, undefined, 'bench');
  }
}

/** The inputs of the events one proposal of `trail` gets, in the order the stages write them. */
function trailOf(trail: Trail, facts: Facts, r: SeededRandom): AuditInput[] {
  const base = { ...facts, tool: trail.tool };
  const command = {
    ...base,
    idempotencyKey: `${facts.tenant}:${facts.callId}`,
    commandId: `cmd-${facts.proposalId}`,
  };
  // One executed call in fifty ends in a tool error: results carry a code now and then.
  const result = (): AuditInput =>
    r.chance(0.02)
      ? {
          kind: 'result',
          ...command,
          rejected: rejecterFor('execution')('tool_error', undefined, 'bench'),
        }
      : { kind: 'result', ...command };
  switch (trail.kind) {
    case 'executed':
      return [{ kind: 'command_issued', ...command }, result()];
    case 'confirmed': {
      const confirmation = { ...base, confirmationId: `conf-${facts.proposalId}` };
      return [
        { kind: 'pending_confirmation', ...confirmation },
        { kind: 'cleared', ...confirmation, confirmedBy: `approver@${facts.tenant}` },
        { kind: 'command_issued', ...command },
        result(),
      ];
    }
    case 'replayed':
      return [{ kind: 'replay', outcome: 'result', ...command }];
    case 'refused':
      return [{ kind: 'rejected', rejected: refusalOf(trail.refusal), ...base }];
  }
}
