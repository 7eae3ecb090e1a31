/**
 * One proposal: decode → authenticate (the session header) → validate (representation, schema,
 * semantics, repair policy) → a validated envelope for authorize, or the refusal's observation
 * and audit event. Undecodable bytes go to quarantine, hashed and sized in the audit.
 */
import {
  auditEvent,
  envelopeIds,
  observationForRefusal,
  refusal,
  SESSION_HEADER,
  validatedEnvelope,
  validateProposal,
  type ObservationIds,
  type Principal,
  type Refusal,
} from '@toolgate/shared';
import type { Incoming, Outgoing, StageDeps } from '@toolgate/platform';

/** Handles one message of the proposals topic. */
export function createProposalHandler(
  deps: StageDeps,
): (msg: Incoming) => Promise<readonly Outgoing[]> {
  const { gate, outputs, metrics } = deps;
  const facts = {
    registry: gate.registry,
    limits: { maxBytes: gate.ceilings.argumentBytes, maxDepth: gate.ceilings.maxDepth },
    repairBudget: gate.ceilings.repairAttempts,
  };
  return async (msg) => {
    const now = deps.now();
    const source = { topic: msg.topic, partition: msg.partition, offset: msg.offset };
    const ids = msg.decodeError === undefined ? envelopeIds(msg.value) : undefined;
    if (ids === undefined || !ids.ok) {
      // Nothing to answer: without ids there is no run to observe. Keep the bytes, never run them.
      const detail = msg.decodeError ?? (ids?.ok === false ? ids.internalDetail : 'no value');
      const raw = msg.raw ?? Buffer.alloc(0);
      metrics.decision({
        disposition: 'deny',
        stage: 'representation',
        code: 'unsupported_format',
      });
      return [
        outputs.quarantine(raw, msg.headers),
        outputs.audit(
          auditEvent({ kind: 'quarantined', raw, internalDetail: detail, source }, now),
        ),
      ];
    }
    const principal = await gate.verifier.verify(msg.headers[SESSION_HEADER], now);
    if (!principal.ok) return refused(ids.value, refusal(principal), undefined);
    const validated = validateProposal(msg.value, principal.value, facts);
    if (!validated.ok) return refused(ids.value, validated, principal.value);
    metrics.decision({ disposition: 'execute', stage: 'semantics' });
    const v = validated.value;
    return [
      outputs.envelope('validated', v.runId, validatedEnvelope(v, msg.receivedAt.toISOString())),
    ];

    function refused(at: ObservationIds, r: Refusal, who: Principal | undefined): Outgoing[] {
      metrics.decision(r.rejected);
      const facts = {
        ...at,
        ...(who === undefined ? {} : { subject: who.subject, tenant: who.tenant }),
        source,
      };
      return [
        outputs.observation(observationForRefusal(at, r, now)),
        outputs.audit(auditEvent({ kind: 'rejected', rejected: r.rejected, ...facts }, now)),
      ];
    }
  };
}
