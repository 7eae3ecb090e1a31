/**
 * The rejection-code catalogue: every code a rung may emit, typed per rung, with its disposition,
 * the public text the model sees and what an operator does about it. `docs/rejection-codes.md`
 * is kept in sync with this object by a test.
 */

/**
 * The rungs, in the order a proposal climbs them. Authentication comes first so that an
 * unauthenticated caller learns nothing about the proposal or the tool catalogue (DESIGN §1).
 */
export const RUNGS = [
  'authentication',
  'representation',
  'schema',
  'semantics',
  'resolution',
  'authorization',
  'precondition',
  'limits',
  'confirmation',
  'idempotency',
  'execution',
  'result',
] as const;

/** One rung of the ladder. */
export type Rung = (typeof RUNGS)[number];

/** What happens to a proposal after a rung has spoken. */
export const DISPOSITIONS = ['execute', 'repair', 'retry', 'confirm', 'deny'] as const;

/** What happens to a proposal after a rung has spoken. */
export type Disposition = (typeof DISPOSITIONS)[number];

/** One catalogue entry. */
export interface CodeSpec {
  /** The disposition every refusal with this code carries. */
  readonly disposition: Disposition;
  /** Default text for the model: what to fix, nothing more. */
  readonly publicMessage: string;
  /** What an operator does when this code shows up in the audit stream. */
  readonly operator: string;
}

const spec = (disposition: Disposition, publicMessage: string, operator: string): CodeSpec => ({
  disposition,
  publicMessage,
  operator,
});

/** Every rejection code, by rung. */
export const REJECTION_CODES = {
  representation: {
    invalid_json: spec(
      'repair',
      'The tool call arguments are not valid JSON. Send them again as one JSON object.',
      'Expected now and then from any model; a rising rate points at a prompt or model change.',
    ),
    truncated: spec(
      'retry',
      'The tool call was cut off before it was complete. Request the completion again.',
      'The completion hit its token limit; raise max_tokens for this agent if it recurs.',
    ),
    too_large: spec(
      'deny',
      'The tool call arguments are larger than allowed.',
      'Raise the argument byte ceiling only if the tool really takes large inputs.',
    ),
    too_deep: spec(
      'deny',
      'The tool call arguments are nested more deeply than allowed.',
      'Almost always a runaway generation or an attack; investigate the run.',
    ),
    duplicate_key: spec(
      'repair',
      'The tool call arguments name the same field twice. Send each field once.',
      'Parsers disagree on duplicates, so they are never accepted; nothing to tune.',
    ),
    forbidden_key: spec(
      'deny',
      'The tool call arguments use a reserved field name.',
      'A __proto__/constructor/prototype key is a prototype-pollution attempt or a broken generator; investigate the run.',
    ),
    not_an_object: spec(
      'repair',
      'The tool call arguments must be a JSON object.',
      'The model sent a scalar or array as arguments; check the tool description.',
    ),
    unrepresentable_number: spec(
      'repair',
      'A number in the tool call arguments cannot be represented exactly. Send a smaller number, or a string if the tool takes one.',
      'A number beyond 2^53 whose digits a double would not keep, however it is written (9007199254740993, 9007199254740993.0, 9007199254740993e0), or a magnitude that overflows or underflows a double: refused rather than silently changed.',
    ),
    malformed_call: spec(
      'repair',
      'The tool call is not in the expected form. Send one JSON object with the tool name and its arguments, as instructed.',
      'The model wrote JSON that is not a call in the bare action format (no action name, extra members, not an object); check that the prompt shows the format.',
    ),
    unsupported_format: spec(
      'deny',
      'The proposal is not in a supported tool-call format.',
      'The agent sent a format the gate does not know, or undecodable bytes (see quarantine).',
    ),
    invalid_proposal: spec(
      'deny',
      'The proposal envelope is malformed.',
      'An agent integration bug: the envelope lacks ids or has the wrong shape; fix the client.',
    ),
  },
  authentication: {
    missing_session: spec(
      'deny',
      'No session was presented. Sign in and try again.',
      'The agent is not sending the toolgate-session header.',
    ),
    invalid_session: spec(
      'deny',
      'The session could not be verified. Sign in again.',
      'Bad signature, wrong audience, wrong algorithm or missing claims: a misconfigured issuer or a forged token.',
    ),
    expired_session: spec(
      'deny',
      'The session has expired. Sign in again.',
      'Normal at token expiry; frequent occurrences mean token lifetimes are shorter than runs.',
    ),
    forged_envelope: spec(
      'deny',
      'The gate refused a message it did not write.',
      'Something other than the gate wrote to an internal topic (validated, authorized, cleared), or stage instances run with different TOOLGATE_INTEGRITY_KEY values; check the topic ACLs and the key.',
    ),
    stale_envelope: spec(
      'deny',
      'The gate refused a message it wrote too long ago.',
      'An internal envelope older than TOOLGATE_ENVELOPE_MAX_AGE_MS: a recorded envelope published again (check who can write internal topics), or a stage that lagged longer than the bound (check consumer lag).',
    ),
    session_keys_unavailable: spec(
      'retry',
      'The session cannot be checked right now. Wait and try again.',
      "The identity provider's keys could not be had (its JWKS URL did not answer within the bounded wait, or answered with an error; or the JWKS file was never readable): nothing was accepted. Check the URL's reachability and the logged fetch error; it clears by itself once the keys are fetched.",
    ),
    unknown_tenant: spec(
      'deny',
      'This session cannot be used here. Sign in again.',
      "A verified session names a tenant the deployment does not list in `tenants`: add the tenant (its observations topic and ACLs come with it) or fix the identity provider's claims.",
    ),
  },
  schema: {
    unknown_tool: spec(
      'repair',
      'There is no tool with that name. Use one of the tools you were given.',
      'The model invented a tool; a rising rate points at a stale tool list in the prompt.',
    ),
    missing_field: spec(
      'repair',
      'A required argument is missing.',
      'The model left out a required argument; check the tool description.',
    ),
    unexpected_field: spec(
      'repair',
      'An argument that the tool does not take was given.',
      'Unknown arguments are refused, never dropped; identity fields such as tenant_id are never accepted from a model.',
    ),
    wrong_type: spec(
      'repair',
      'An argument has the wrong type.',
      'The model sent a value of the wrong JSON type; check the schema and description.',
    ),
    invalid_value: spec(
      'repair',
      'An argument does not satisfy the tool schema.',
      'A value outside the schema (enum, pattern, bounds, length).',
    ),
  },
  semantics: {
    empty_query: spec(
      'repair',
      'The search query is empty. Say what to search for.',
      'The model searched for nothing; check the prompt that leads to search.',
    ),
    empty_value: spec(
      'repair',
      'An argument is empty or blank.',
      'The model sent a blank value where meaning is required.',
    ),
    out_of_range: spec(
      'repair',
      'An argument is outside its allowed range.',
      'The model asked for a value the tool does not accept.',
    ),
    not_arithmetic: spec(
      'repair',
      'The expression must contain only numbers, + - * / and parentheses.',
      'The model sent something other than arithmetic to calculate.',
    ),
    invalid_amount: spec(
      'repair',
      'The amount must be a positive whole number of cents.',
      'The model sent a non-positive or fractional amount.',
    ),
  },
  resolution: {
    not_found: spec(
      'deny',
      'The referenced object was not found.',
      'The object does not exist under the caller tenant (another tenant\u2019s object is reported the same way); look up objectIds in the audit event.',
    ),
    ambiguous_reference: spec(
      'deny',
      'The call names two different objects by the same id, so it cannot be checked.',
      'The tool references objects of two types under one id, and its hooks (preconditions, confirmation, card) see objects by id alone, so they could read one for the other; nothing ran. Give each type ids of its own, for example a prefix, as the example tools do.',
    ),
  },
  authorization: {
    not_authorized: spec(
      'deny',
      'This action is not allowed.',
      'Policy denied it; the audit event names the policy version and the deciding policies.',
    ),
    policy_error: spec(
      'deny',
      'This action is not allowed.',
      'The policy engine could not evaluate (bad policy, missing attribute, an argument or attribute value Cedar cannot hold exactly); the gate failed closed. Fix the policy set, or guard the read with `has`.',
    ),
  },
  precondition: {
    not_open: spec(
      'deny',
      'The invoice is not open, so its status cannot change.',
      'The world no longer allows the action; nothing to fix in the gate.',
    ),
    refund_exceeds_remaining: spec(
      'deny',
      'The refund is larger than what is left to refund on this payment.',
      'The world no longer allows the action; nothing to fix in the gate.',
    ),
    stale_object: spec(
      'deny',
      'The referenced object changed since it was read.',
      'A compare-and-set failed because the object changed; the caller should re-read.',
    ),
  },
  limits: {
    repair_budget_exhausted: spec(
      'deny',
      'Too many attempts to correct this call. Stop and report the problem.',
      'The model could not produce a valid call within the repair budget.',
    ),
    run_call_limit: spec(
      'deny',
      'This run has made as many tool calls as it may.',
      'A runaway loop or a large task; raise the per-run ceiling only deliberately.',
    ),
    rate_limited: spec(
      'retry',
      'Too many tool calls right now. Wait and try again.',
      'The user or the tenant exceeded its calls per second (the audit detail says which).',
    ),
  },
  confirmation: {
    pending: spec(
      'confirm',
      'This action needs a person to approve it. It will run once approved.',
      'A confirmation request was published; approvers act on it.',
    ),
    rejected_by_human: spec(
      'deny',
      'A person declined this action.',
      'An approver rejected it; nothing to do.',
    ),
    expired: spec(
      'deny',
      'Nobody approved this action in time.',
      'The confirmation expired unanswered; check that approvers are notified.',
    ),
    content_changed: spec(
      'deny',
      'What was approved no longer matches the current state, so nothing ran.',
      'The objects or the card changed between the request and the approval, or the approval named a stale digest.',
    ),
    approver_not_authorized: spec(
      'deny',
      'The approval came from someone who may not approve this action.',
      'Someone without the right role or tenant tried to approve, or policy refused this approver for this requester (e.g. four eyes: their own call); investigate.',
    ),
    already_decided: spec(
      'deny',
      'This confirmation was already decided.',
      'A second approval or rejection of the same confirmation; approvals are single-use.',
    ),
    unknown_confirmation: spec(
      'deny',
      'There is no confirmation with that id waiting for you.',
      'An approval named a confirmation that was never parked under the approver\u2019s tenant (a typo, a stale link, or another tenant\u2019s id, which is reported the same way); look up confirmationId and decidedBy in the audit event.',
    ),
    invalid_approval: spec(
      'deny',
      'The approval is malformed. Send confirmationId, decision (approve or reject) and the digest shown on the card.',
      'An approval UI or bot wrote something to the approvals topic that is not an Approval (undecodable, wrong shape); fix the client.',
    ),
    invalid_card: spec(
      'deny',
      'This action needs a person to approve it, but no approval request could be made for it, so nothing ran.',
      'The tool\u2019s card builder returned a card the confirmations topic cannot carry (an empty action, target or effect line, a reserved key such as constructor in the preview, a preview too deep or too large); the audit detail names the problem. Fix the card builder.',
    ),
    proposal_reused: spec(
      'deny',
      'This proposal id was already used for another call that needs approval, so this call did not run. Send each call under a new proposal id.',
      'The client sent a different call under a proposalId whose confirmation was already parked (proposalIds are unique per submission); the first call keeps its confirmation, and the audit detail names it. Fix the client.',
    ),
  },
  idempotency: {
    conflict: spec(
      'deny',
      'This call reuses an id from an earlier call with different arguments.',
      'The client reused a call id for a different command; a client bug.',
    ),
    in_flight: spec(
      'retry',
      'The same call is already being processed. Wait for its result.',
      'A concurrent duplicate; it resolves itself.',
    ),
    replay_expired: spec(
      'retry',
      'The earlier outcome of this call is no longer kept. Propose the call again.',
      'A retry of a finished call was authorized as a replay (no preconditions, no confirmation), and by execute its stored outcome was gone: its retention ended, or Redis lost its data. Nothing ran; proposed again, the call climbs every rung.',
    ),
  },
  execution: {
    timeout_outcome_unknown: spec(
      'deny',
      'The tool did not answer in time; whether it acted is unknown. Do not repeat the call blindly.',
      'Look the idempotency key up in the tool worker ledger; a late result is still recorded under it.',
    ),
    timeout_retryable: spec(
      'retry',
      'The tool did not answer in time. It only reads, so nothing changed: propose the call again.',
      'A read tool did not answer by its deadline (its class makes a timeout safe to retry); a rising rate points at a slow tool or a timeout set too low.',
    ),
    tool_error: spec(
      'deny',
      'The tool reported an error.',
      'Read the tool worker logs for the command id.',
    ),
    internal_error: spec(
      'deny',
      'The gate could not process this call.',
      'A non-retriable fault in a stage; the audit event carries the error. File a bug.',
    ),
  },
  result: {
    too_large: spec(
      'deny',
      'The tool output was too large to show.',
      'Raise the result ceiling or make the tool return less.',
    ),
    withheld: spec(
      'deny',
      'The tool output was withheld.',
      'The output matched an injection pattern; review it in the audit stream.',
    ),
    invalid_output: spec(
      'deny',
      'The tool output did not match its declared shape.',
      'The tool broke its output schema; fix the tool.',
    ),
  },
} as const satisfies Record<Rung, Record<string, CodeSpec>>;

/** The codes one rung may emit. */
export type CodeOf<R extends Rung> = keyof (typeof REJECTION_CODES)[R] & string;

/** Any code of any rung. */
export type AnyCode = { [R in Rung]: CodeOf<R> }[Rung];
