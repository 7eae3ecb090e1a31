/**
 * One proposal: decode → authenticate (the session header) → validate (representation, schema,
 * semantics, repair policy) → a validated envelope for authorize, or the refusal's observation
 * and audit event. Undecodable bytes go to quarantine, hashed and sized in the audit; when they
 * are JSON that the bounded parser refused (a duplicate key inside the arguments, say) but whose
 * ids can be read, the sender also gets the refusal's observation, after its session is verified.
 */
import {
  auditEvent,
  envelopeIds,
  observationForRefusal,
  refusal,
  refuseUnparsedProposal,
  REPLY_TENANT_HEADER,
  SESSION_HEADER,
  validatedEnvelope,
  validateProposal,
  type ObservationIds,
  type Principal,
  type Refusal,
  type UnparsedProposalRefusal,
} from '@toolgate/shared';
import {
  classifyBytes,
  ENVELOPE_LIMITS,
  type Incoming,
  originOf,
  type Outgoing,
  type StageDepsWith,
} from '@toolgate/platform';

/** Strict UTF-8, as the codec decodes: a record that is not UTF-8 is not read any further. */
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Handles one message of the proposals topic. */
export function createProposalHandler(
  deps: StageDepsWith,
): (msg: Incoming) => Promise<readonly Outgoing[]> {
  const { gate, outputs, metrics } = deps;
  const facts = {
    registry: gate.registry,
    limits: { maxBytes: gate.ceilings.argumentBytes, maxDepth: gate.ceilings.maxDepth },
    repairBudget: gate.ceilings.repairAttempts,
  };
  return async (msg) => {
    const now = deps.now();
    const origin = originOf(msg);
    const ids = msg.decodeError === undefined ? envelopeIds(msg.value) : undefined;
    if (ids === undefined || !ids.ok) {
      // Keep the bytes, never run them. Without readable ids there is no run to observe.
      const detail = msg.decodeError ?? (ids?.ok === false ? ids.internalDetail : 'no value');
      const raw = msg.raw ?? Buffer.alloc(0);
      const kept = [
        outputs.quarantine(raw, msg.headers),
        outputs.audit(
          auditEvent({ kind: 'quarantined', raw, internalDetail: detail, ...origin }, now),
        ),
      ];
      const unparsed =
        msg.decodeError === undefined ? undefined : unparsedRefusal(msg.raw, facts.repairBudget);
      if (unparsed !== undefined) return [...kept, ...(await answered(unparsed))];
      metrics.decision({
        disposition: 'deny',
        stage: 'representation',
        code: 'unsupported_format',
      });
      return kept;
    }
    const principal = await gate.verifier.verify(msg.headers[SESSION_HEADER], now);
    if (!principal.ok) return refused(ids.value, refusal(principal), undefined);
    const validated = validateProposal(msg.value, principal.value, facts);
    if (!validated.ok) return refused(ids.value, validated, principal.value);
    metrics.decision({ disposition: 'execute', stage: 'semantics' });
    const v = validated.value;
    return [
      outputs.envelope(
        'validated',
        v.runId,
        validatedEnvelope(v, msg.receivedAt.toISOString()),
        now,
      ),
    ];

    /** The answer to a refused record whose ids could be read: the session is checked first. */
    async function answered(unparsed: UnparsedProposalRefusal): Promise<Outgoing[]> {
      const who = await gate.verifier.verify(msg.headers[SESSION_HEADER], now);
      if (!who.ok) return refused(unparsed.ids, refusal(who), undefined);
      return refused(unparsed.ids, unparsed.refusal, who.value);
    }

    function refused(at: ObservationIds, r: Refusal, who: Principal | undefined): Outgoing[] {
      metrics.decision(r.rejected);
      const facts = {
        ...at,
        ...(who === undefined ? {} : { subject: who.subject, tenant: who.tenant }),
        ...origin,
      };
      // A refusal the session cannot place goes where the proposal asks; it says nothing else.
      const tenant = who?.tenant ?? msg.headers[REPLY_TENANT_HEADER];
      return [
        ...outputs.observation(observationForRefusal(at, r, now), tenant),
        outputs.audit(auditEvent({ kind: 'rejected', rejected: r.rejected, ...facts }, now)),
      ];
    }
  };
}

/**
 * The refusal owed to a record the codec could not decode, when it is JSON (plain, or the wire
 * format's payload) that the bounded parser refused but whose ids can be read; else undefined.
 * Read within the codec's own envelope ceilings, so the reader refuses it for the same reason.
 */
function unparsedRefusal(
  raw: Buffer | null,
  repairBudget: number,
): UnparsedProposalRefusal | undefined {
  const text = recordText(raw);
  return text === undefined
    ? undefined
    : refuseUnparsedProposal(text, { limits: ENVELOPE_LIMITS, repairBudget });
}

/** The JSON text of a record (plain, or a wire-format payload) within the envelope's bytes. */
function recordText(raw: Buffer | null): string | undefined {
  const shape = classifyBytes(raw);
  const json = shape.kind === 'json' ? shape.text : shape.kind === 'wire' ? shape.payload : null;
  if (json === null || json.length > ENVELOPE_LIMITS.maxBytes) return undefined;
  try {
    return fatalUtf8.decode(json);
  } catch {
    return undefined;
  }
}
