/**
 * One proposal: decode → authenticate (the session header) → validate (representation, schema,
 * semantics) → count it (one Redis round trip: its run, its user's and tenant's second, its repair
 * chain) → the call ceilings and the repair policy → a validated envelope for authorize, or the
 * refusal's observation and audit event. Every authenticated proposal is counted, refused or not,
 * so a client cannot loop on refusals for free; one that is not authenticated costs no Redis
 * write. Undecodable bytes go to quarantine, hashed and sized in the audit; when they are JSON that
 * the bounded parser refused (a duplicate key inside the arguments, say) but whose ids can be
 * read, the sender also gets the refusal's observation, after its session is verified and the
 * proposal counted.
 */
import {
  admitProposal,
  auditEvent,
  chainStepOf,
  checkProposal,
  envelopeIds,
  observationForRefusal,
  rateSecondOf,
  refusal,
  refuseUnparsedProposal,
  REPLY_TENANT_HEADER,
  SESSION_HEADER,
  validatedEnvelope,
  type CheckedProposal,
  type GateCounts,
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

/** What the handler uses: of the store, the call counters. */
export type ProposalDeps = StageDepsWith<'counters'>;

/**
 * Handles one message of the proposals topic. A run's next proposal may start once this one's
 * count is sent (`release`): Redis counts the run's proposals in the order they were sent.
 */
export function createProposalHandler(
  deps: ProposalDeps,
): (msg: Incoming, release: () => void) => Promise<readonly Outgoing[]> {
  const { gate, outputs, metrics, counters } = deps;
  const facts = {
    registry: gate.registry,
    limits: { maxBytes: gate.ceilings.argumentBytes, maxDepth: gate.ceilings.maxDepth },
    repairBudget: gate.ceilings.repairAttempts,
  };
  // The run's proposals up to its limit and the first past it are told apart (one delivered again
  // is not counted again); later ones are only counted: they are refused whatever they are.
  const keep = Math.min(gate.ceilings.callsPerRun + 1, Number.MAX_SAFE_INTEGER);
  return async (msg, release) => {
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
    const checked = checkProposal(msg.value, principal.value, facts);
    const counts = await counted(checked, principal.value, ids.value.runId);
    const validated = admitProposal(checked, counts, gate.ceilings);
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
      const counts = await counted(unparsed.checked, who.value, unparsed.ids.runId);
      return refused(
        unparsed.ids,
        admitProposal(unparsed.checked, counts, gate.ceilings),
        who.value,
      );
    }

    /**
     * Counts an authenticated proposal, in one round trip. Told apart by its record's partition
     * and offset: the same record delivered again (after a crash or a rebalance) is the same
     * proposal, and gets the answer it got the first time, while the same bytes sent again are a
     * new submission and count again. (The gate reads one proposals topic, so the topic need not
     * be named.)
     */
    async function counted(checked: CheckedProposal, who: Principal, runId: string) {
      const counting: Promise<GateCounts> = counters.countProposal({
        tenant: who.tenant,
        subject: who.subject,
        runId,
        token: `${msg.partition}:${msg.offset}`,
        second: rateSecondOf(msg.timestampMs, now),
        chain: checked.chain,
        step: chainStepOf(checked),
        keep,
      });
      // The count is sent: the run's next proposal is counted after this one.
      release();
      return counting;
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
