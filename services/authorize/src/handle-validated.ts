/**
 * One validated envelope: integrity → the tool → the referenced objects under the caller's tenant
 * → resolution, authorization and preconditions → an authorized envelope for confirm, or the
 * refusal's observation and audit event. A forged envelope is refused and never forwarded. (The
 * call was counted against the ceilings where it entered, by validate.)
 */
import {
  auditEvent,
  auditFactsOf,
  authorizedEnvelope,
  authorizeProposal,
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

/** What the handler uses: of the store, the idempotency records. */
export type ValidatedDeps = StageDepsWith<'idempotency'>;

/**
 * Handles one message of the validated topic. A run's next envelope may start once this one's
 * facts are asked for (`release`).
 */
export function createValidatedHandler(
  deps: ValidatedDeps,
): (msg: Incoming, release: () => void) => Promise<readonly Outgoing[]> {
  const { gate, outputs, metrics, idempotency } = deps;
  const refused = refuser(deps);
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
    // The facts are independent: fetch them at once. The idempotency record tells a client retry
    // of a settled call.
    const asked = Promise.all([
      Promise.all(refs.map((ref) => gate.objects.load(tenant, ref))),
      idempotency.getRecord(tenant, known.key),
    ]);
    release();
    const [loaded, record] = await asked;
    const prior = priorCall(record, known.digest);
    if (!prior.ok) return refused(v, refusal(prior), refs, at);
    const settled = prior.value.settled;
    const facts = { registry: gate.registry, policies: gate.policies };
    const authorized = authorizeProposal(v, tool.value, loaded, { ...facts, settled });
    if (!authorized.ok) return refused(v, authorized, refs, at);
    metrics.decision({ disposition: 'execute', stage: 'precondition' });
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
