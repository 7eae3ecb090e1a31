/**
 * One validated envelope: integrity → the tool → the referenced objects under the caller's tenant
 * → the call counters → resolution, authorization, preconditions and limits → an authorized
 * envelope for confirm, or the refusal's observation and audit event. A forged envelope is
 * refused and never forwarded.
 */
import {
  auditEvent,
  auditFactsOf,
  authorizedEnvelope,
  authorizeProposal,
  callCountToken,
  identityFor,
  priorCall,
  refusal,
  observationForRefusal,
  referencesOf,
  toolOf,
  type ObjectRef,
  type Refusal,
  type ValidatedEnvelope,
} from '@toolgate/shared';
import {
  type Incoming,
  type MessageOrigin,
  originOf,
  type Outgoing,
  refuseForged,
  type StageDepsWith,
} from '@toolgate/platform';

/** What the handler uses: of the store, the idempotency records and the call counters. */
export type ValidatedDeps = StageDepsWith<'idempotency' | 'counters'>;

/**
 * Handles one message of the validated topic. A run's next envelope may start once this one's
 * facts are asked for (`release`): Redis counts the run's calls in the order they were sent.
 */
export function createValidatedHandler(
  deps: ValidatedDeps,
): (msg: Incoming, release: () => void) => Promise<readonly Outgoing[]> {
  const { gate, outputs, metrics, idempotency, counters } = deps;
  const refused = refuser(deps);
  // The run's calls up to its limit and the first past it are told apart (a redelivery of one is
  // not counted again); later ones are only counted: they are refused whatever they are.
  const keep = Math.min(gate.ceilings.callsPerRun + 1, Number.MAX_SAFE_INTEGER);
  return async (msg, release) => {
    const now = deps.now();
    const forged = refuseForged(msg, deps, now);
    if (forged !== undefined) return forged;
    // The tag proves the gate wrote this value, and the gate writes only schema-checked envelopes.
    const v = msg.value as ValidatedEnvelope;
    const at = { origin: originOf(msg), now };
    const tool = toolOf(v, gate.registry);
    if (!tool.ok) return refused(v, tool, [], at);
    const refs = referencesOf(v, tool.value);
    const tenant = v.context.tenant;
    const known = identityFor(v, refs, tool.value.spec.sideEffect);
    // The facts are independent: fetch them at once. Counted by proposal and call, so a
    // redelivered envelope is not counted twice, nor are calls under a reused proposalId counted
    // once; the idempotency record tells a client retry of a settled call.
    const token = callCountToken(v.proposalId, known.key, known.digest);
    const asked = Promise.all([
      Promise.all(refs.map((ref) => gate.objects.load(tenant, ref))),
      counters.countCall(tenant, v.runId, token, now.getTime(), keep),
      idempotency.getRecord(tenant, known.key),
    ]);
    // The count is sent: the run's next call is counted after this one, whenever it starts.
    release();
    const [loaded, counts, record] = await asked;
    const prior = priorCall(record, known.digest);
    if (!prior.ok) return refused(v, refusal(prior), refs, at);
    const settled = prior.value.settled;
    const facts = { registry: gate.registry, policies: gate.policies, ceilings: gate.ceilings };
    const authorized = authorizeProposal(v, tool.value, loaded, { ...facts, counts, settled });
    if (!authorized.ok) return refused(v, authorized, refs, at);
    metrics.decision({ disposition: 'execute', stage: 'limits' });
    const envelope = authorizedEnvelope(authorized.value, v.receivedAt);
    return [outputs.envelope('authorized', v.runId, envelope, at.now)];
  };
}

/** Where and when a decision was made. */
interface DecidedAt {
  readonly origin: MessageOrigin;
  readonly now: Date;
}

/** The outputs of a refusal of a genuine envelope: observation, audit event, metric. */
function refuser(deps: StageDepsWith) {
  const { outputs, metrics } = deps;
  return (v: ValidatedEnvelope, r: Refusal, objects: readonly ObjectRef[], at: DecidedAt) => {
    metrics.decision(r.rejected);
    const ids = { proposalId: v.proposalId, runId: v.runId, requestId: v.requestId };
    const facts = {
      ...auditFactsOf(v),
      objects,
      // Every rung of this stage decides under the policy set in force (DESIGN §3).
      policyVersion: deps.gate.policies.version,
      ...at.origin,
    };
    return [
      ...outputs.observation(
        observationForRefusal({ ...ids, callId: v.context.callId }, r, at.now),
        v.context.tenant,
      ),
      outputs.audit(auditEvent({ kind: 'rejected', rejected: r.rejected, ...facts }, at.now)),
    ];
  };
}
