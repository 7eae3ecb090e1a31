/**
 * The shape of a tool definition, as a deployment writes it and `defineTool` checks it. Everything
 * here is trusted server configuration; nothing comes from the model.
 */
import type { CodeOf } from './catalogue.js';
import type { CardWithChanges, ObjectRef, ResolvedObject, SideEffect } from './types.js';

/** A JSON Schema (draft 2020-12) object schema, as written by a deployment. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** One semantic problem with an argument value: a catalogue code and a public message. */
export interface SemanticIssue {
  readonly code: CodeOf<'semantics'>;
  /** Public: names the argument and what to fix; never echoes identifiers of other tenants. */
  readonly message: string;
}

/** One precondition that the live world does not meet. */
export interface PreconditionIssue {
  readonly code: CodeOf<'precondition'>;
  readonly message: string;
}

/**
 * Resolved objects of one call, by the reference's id. A call whose references give two types
 * one id is refused before any hook runs (`resolution/ambiguous_reference`).
 */
export type ObjectsById = ReadonlyMap<string, ResolvedObject>;

/**
 * A tool definition as a deployment writes it. `A` is the type of the validated arguments.
 */
export interface ToolSpec<A = Record<string, unknown>> {
  /** Tool name as the model calls it: `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`. */
  readonly name: string;
  /** What the tool does, shown to the model in tool lists. */
  readonly description: string;
  /** The definition's version, recorded in commands and audit events. */
  readonly version: string;
  /**
   * Side-effect class: read, write or destructive. It sets how a timeout is reported, what the
   * idempotency key is scoped to and whether a person confirms (`SIDE_EFFECT_DEFAULTS`).
   */
  readonly sideEffect: SideEffect;
  /** Input JSON Schema: a closed object (`additionalProperties: false`), no identity fields. */
  readonly input: JsonSchema;
  /** Checks of meaning, after the schema passed. Returns the first problem or undefined. */
  readonly semantics?: (args: A) => SemanticIssue | undefined;
  /**
   * The objects the call names, for resolution under the caller's tenant. Default: none. The
   * hooks see them by id alone, so ids of different types must not coincide (see
   * {@link ObjectsById}).
   */
  readonly references?: (args: A) => readonly ObjectRef[];
  /** Does the live world allow it? Runs after authorization. */
  readonly preconditions?: (args: A, objects: ObjectsById) => PreconditionIssue | undefined;
  /**
   * Must a human approve this call? Default: true for destructive tools, false otherwise.
   * A destructive tool cannot opt out.
   */
  readonly requiresConfirmation?: (args: A, objects: ObjectsById) => boolean;
  /**
   * Why a call waits for a person, in words an approver reads beside the card ("Invoices at or
   * above 10,000.00 need a person's approval."). Default: by side-effect class
   * (`defaultConfirmationRule`).
   */
  readonly confirmationRule?: string;
  /**
   * Builds the confirmation card from the resolved, live objects, with the `changes` the call
   * would make when the tool can name them (the before value read from the live object). Required
   * when confirmation can be needed.
   */
  readonly card?: (args: A, objects: ObjectsById) => CardWithChanges;
  /**
   * How long the tool may take, in milliseconds. Default: the deployment's `toolTimeoutMs` ceiling
   * (10 000 unless configured); a value above that ceiling is refused at start-up.
   */
  readonly timeoutMs?: number;
  /**
   * Result ceilings: output bytes (default: the deployment's `resultBytes` ceiling, 64 KiB unless
   * configured; a value above it is refused at start-up) and an optional output JSON Schema.
   */
  readonly result?: { readonly maxBytes?: number; readonly outputSchema?: JsonSchema };
}

/** Where resolution loads objects from: the deployment's store, always scoped by tenant. */
export interface ObjectStore {
  /** The object, if it exists under `tenant`; undefined otherwise (including when it is another tenant's). */
  load(tenant: string, ref: ObjectRef): Promise<ResolvedObject | undefined>;
}
