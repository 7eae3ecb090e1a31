/**
 * The facts and messages the core works with. Field names of the public messages are the contract
 * of DESIGN §2: more may be added, none renamed.
 */
import type { AnyCode, Disposition, Rung } from './catalogue.js';

/** The proposal formats of DESIGN §9. */
export const PROPOSAL_FORMATS = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'mcp',
  'action-json',
] as const;

/** One proposal format. */
export type ProposalFormat = (typeof PROPOSAL_FORMATS)[number];

/** A proposal as an agent submits it (DESIGN §9). `call` is the provider's own payload. */
export interface Proposal {
  readonly proposalId: string;
  readonly runId: string;
  readonly requestId: string;
  readonly format: ProposalFormat;
  /** The provider's own finish word (`finish_reason`, `stop_reason`, response `status`). */
  readonly finishReason?: string | null;
  /** 0 for a first proposal, n for the n-th correction. */
  readonly attempt?: number;
  /** The proposalId this one corrects, or null. */
  readonly repairOf?: string | null;
  readonly call: unknown;
}

/** How a completion ended, once the provider's word has been mapped. */
export type Completion = 'complete' | 'truncated' | 'unknown';

/**
 * What every normalizer produces: one internal call. Exactly one of `argumentsText` (a JSON text
 * still to parse) and `argumentsObject` (already structured, e.g. Anthropic `input`) is present.
 */
export interface NormalizedCall {
  readonly callId: string;
  readonly tool: string;
  readonly argumentsText?: string;
  readonly argumentsObject?: unknown;
  readonly completion: Completion;
  /** Set when the normalizer already stripped a known Markdown fence (the bare action format). */
  readonly repaired?: 'fence';
}

/** A call whose arguments were decoded completely, within limits. */
export interface ParsedCall {
  readonly callId: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Set when the only allowed repair (a known Markdown fence) was applied. */
  readonly repaired?: 'fence';
}

/** The verified principal, from the session token only (never from the model). */
export interface Principal {
  readonly subject: string;
  readonly tenant: string;
  readonly roles: readonly string[];
}

/** The trusted context of one call: the principal plus the ids of the request. */
export interface CallContext extends Principal {
  readonly requestId: string;
  readonly runId: string;
  readonly proposalId: string;
  readonly callId: string;
}

/** A tool's side-effect class: trusted server configuration (DESIGN §3). */
export type SideEffect = 'read' | 'write' | 'destructive';

/** A reference to an object a call names, before resolution. */
export interface ObjectRef {
  readonly type: string;
  readonly id: string;
}

/** An object loaded under the caller's tenant, with the version a tool applies compare-and-set on. */
export interface ResolvedObject extends ObjectRef {
  readonly tenant: string;
  readonly version: number;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** What a confirmation shows a human: built from the resolved, live objects. */
export interface Card {
  readonly action: string;
  readonly target: string;
  readonly effect: string;
  readonly preview: unknown;
}

/** One field a call would change, as its tool's card can say it. */
export interface CardChange {
  /** What changes, in words (`status`, `refunded`). */
  readonly field: string;
  /** Its value now, from the live object; null when the object has none yet. */
  readonly before: string | null;
  /** Its value once the call has run. */
  readonly after: string;
}

/** A card with the changes its tool can name (tools that cannot leave `changes` out). */
export type CardWithChanges = Card & { readonly changes?: readonly CardChange[] };

/** A command for a tool (DESIGN §2). Carries no bearer token. */
export interface Command {
  readonly commandId: string;
  readonly idempotencyKey: string;
  readonly tool: string;
  readonly toolVersion: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly context: {
    readonly subject: string;
    readonly tenant: string;
    readonly requestId: string;
    readonly runId: string;
    readonly proposalId: string;
    readonly callId: string;
  };
  readonly objects: readonly {
    readonly type: string;
    readonly id: string;
    readonly version: number;
  }[];
  readonly confirmedBy?: string;
  /** ISO-8601 instant after which the tool must not act. */
  readonly deadline: string;
  readonly issuedAt: string;
}

/** A tool worker's report (DESIGN §2). */
export interface ToolResult {
  readonly commandId: string;
  readonly idempotencyKey: string;
  readonly runId: string;
  readonly status: 'ok' | 'error';
  readonly output?: unknown;
  readonly error?: { readonly code: string; readonly message: string };
  readonly completedAt: string;
}

/**
 * The ToolResult error code by which a tool says it cannot tell whether the command took effect
 * (resumed past its deadline, abandoned, failed after the deadline): the execute stage ends the
 * call as `unknown_outcome`, as for a tool that never answered, never as a definite error.
 */
export const TOOL_OUTCOME_UNKNOWN = 'outcome_unknown';

/** Observation outcomes; all but `pending_confirmation` are terminal. */
export const OUTCOMES = [
  'result',
  'rejected',
  'pending_confirmation',
  'expired',
  'unknown_outcome',
] as const;

/** One observation outcome. */
export type Outcome = (typeof OUTCOMES)[number];

/** What the agent learns about its proposal (DESIGN §2). */
export interface Observation {
  readonly proposalId: string;
  readonly runId: string;
  readonly requestId: string;
  readonly callId?: string;
  readonly outcome: Outcome;
  readonly disposition: Disposition;
  /** The rung that decided (for a refusal, the one that refused); the published field name. */
  readonly stage?: Rung;
  readonly code?: AnyCode;
  readonly message: string;
  readonly repair?: {
    readonly attempt: number;
    readonly remaining: number;
    readonly prompt: string;
  };
  readonly confirmation?: { readonly confirmationId: string; readonly expiresAt: string };
  readonly result?: { readonly content: string; readonly withheld: boolean };
  readonly replay?: boolean;
  readonly at: string;
}
