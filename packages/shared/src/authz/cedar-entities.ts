/**
 * The Cedar entity model (docs/decisions/0001-cedar-entity-model.md). Every uid and attribute is
 * built from the verified principal, trusted tool configuration and resolved objects, never from
 * model text; uids go to Cedar as JSON, so no string is ever spliced into policy syntax.
 */
import type {
  CedarValueJson,
  EntityJson,
  EntityUidJson,
  TypeAndId,
} from '@cedar-policy/cedar-wasm/nodejs';
import type { JsonSchema } from '../tool-spec.js';
import type { Principal, ResolvedObject, SideEffect } from '../types.js';
import { cedarRecord, UNKNOWN_PLACE } from './cedar-values.js';
import { schemaPlace } from './schema-place.js';

/** The namespace of every Toolgate entity type. */
export const NAMESPACE = 'Toolgate';

/** Action ids that name groups or the approval, so no tool may be called by these names. */
export const RESERVED_ACTIONS = ['read', 'write', 'destructive', 'approve'] as const;

/** Entity types the model itself uses, so no resolved object may claim them. */
export const RESERVED_TYPES = ['User', 'Role', 'Action', 'Tool'] as const;

/** A tool as authorization sees it: trusted configuration. */
export interface ToolFacts {
  readonly name: string;
  readonly sideEffect: SideEffect;
}

/** A call's arguments as the schema rung accepted them, with the schema that typed them. */
export interface CallArguments {
  readonly values: Readonly<Record<string, unknown>>;
  /** The tool's input schema: it decides which numbers are `decimal`s. */
  readonly schema: JsonSchema;
}

/**
 * What a request asks: may the principal call the tool (with `args` when the call has them; a
 * tool list asks without), or approve a call that `requester` proposed (the requester as the
 * pending confirmation recorded them, from their verified session).
 */
export type Asked =
  | { readonly action: 'call'; readonly args?: CallArguments }
  | { readonly action: 'approve'; readonly requester: Principal };

/** Asking to call the tool, whatever the arguments. */
export const CALL: Asked = { action: 'call' };

/** The context attribute that holds a call's arguments. */
export const ARGS = 'args';

/** What the loaded policies can read, so that nothing else need cross into the engine. */
export interface Reads {
  /** Every attribute name any policy names (of an object, the context or the arguments). */
  readonly attributes: ReadonlySet<string>;
  /** Some policy can observe `context.args` whole, so every argument must be sent. */
  readonly wholeArguments: boolean;
}

/** One Cedar request without its policies: the four parts plus the entities it needs. */
export interface CedarRequest {
  readonly principal: EntityUidJson;
  readonly action: EntityUidJson;
  readonly resource: EntityUidJson;
  readonly context: Record<string, CedarValueJson>;
  readonly entities: EntityJson[];
}

/** A request, or why it cannot be expressed (which fails closed as a policy error). */
export type RequestOutcome =
  | { readonly ok: true; readonly request: CedarRequest }
  | { readonly ok: false; readonly problem: string };

const uid = (type: string, id: string): TypeAndId => ({ type: `${NAMESPACE}::${type}`, id });
const IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/**
 * The request "may `principal` do `asked` to `resource`": the tool's own action (a member of its
 * side-effect group) or the `approve` action; `resource` an object or, when undefined, the tool
 * itself. Context: `{ tool, sideEffect }`; for a call with arguments `args`, the arguments as a
 * record (when some policy can read `args`); for an approval `requester`, the `User` who proposed
 * the call (an entity of the request, with its tenant and roles, so a policy can compare it with
 * the principal or read it). Of the object's attributes and the arguments only those named in
 * `reads` (what the policies can read) are converted and sent.
 */
export function cedarRequest(
  principal: Principal,
  tool: ToolFacts,
  asked: Asked,
  object: ResolvedObject | undefined,
  reads: Reads,
): RequestOutcome {
  const readable = reads.attributes;
  if ((RESERVED_ACTIONS as readonly string[]).includes(tool.name)) {
    return { ok: false, problem: `tool name ${tool.name} collides with a reserved action` };
  }
  const resource = object === undefined ? toolEntity(tool) : objectEntity(object, readable);
  if (!resource.ok) return resource;
  const actionEntity = asked.action === 'approve' ? approveEntity() : toolActionEntity(tool);
  const context: Record<string, CedarValueJson> = { tool: tool.name, sideEffect: tool.sideEffect };
  if (asked.action === 'call' && asked.args !== undefined && readable.has(ARGS)) {
    const args = argumentsRecord(asked.args, reads);
    if (!args.ok) return args;
    context[ARGS] = args.value;
  }
  const entities = [principalEntity(principal), actionEntity, resource.entity];
  if (asked.action === 'approve') {
    const { requester } = asked;
    context['requester'] = { __entity: uid('User', requester.subject) };
    // One uid is one entity: an approver who proposed the call is already the principal.
    if (requester.subject !== principal.subject) entities.push(principalEntity(requester));
  }
  const request: CedarRequest = {
    principal: uid('User', principal.subject),
    action: actionEntity.uid,
    resource: resource.entity.uid,
    context,
    entities,
  };
  return { ok: true, request };
}

function principalEntity(principal: Principal): EntityJson {
  return {
    uid: uid('User', principal.subject),
    attrs: { tenant: principal.tenant },
    parents: principal.roles.map((role) => uid('Role', role)),
  };
}

function toolActionEntity(tool: ToolFacts): EntityJson {
  return { uid: uid('Action', tool.name), attrs: {}, parents: [uid('Action', tool.sideEffect)] };
}

function approveEntity(): EntityJson {
  return { uid: uid('Action', 'approve'), attrs: {}, parents: [] };
}

type EntityOutcome =
  | { readonly ok: true; readonly entity: EntityJson }
  | { readonly ok: false; readonly problem: string };

function toolEntity(tool: ToolFacts): EntityOutcome {
  const entity = {
    uid: uid('Tool', tool.name),
    attrs: { sideEffect: tool.sideEffect },
    parents: [],
  };
  return { ok: true, entity };
}

/** The object's readable attributes plus `tenant`, which comes from resolution, never the data. */
function objectEntity(object: ResolvedObject, readable: ReadonlySet<string>): EntityOutcome {
  if (!IDENTIFIER.test(object.type)) {
    return {
      ok: false,
      problem: `object type ${JSON.stringify(object.type)} is not a Cedar identifier`,
    };
  }
  if ((RESERVED_TYPES as readonly string[]).includes(object.type)) {
    return { ok: false, problem: `object type ${object.type} collides with the entity model` };
  }
  const read = Object.entries(object.attributes).filter(([key]) => readable.has(key));
  const typing = { fractions: 'refuse', place: UNKNOWN_PLACE } as const;
  const attrs = cedarRecord(Object.fromEntries(read), `${object.type}/${object.id}`, 0, typing);
  if (!attrs.ok) return attrs;
  const entity = {
    uid: uid(object.type, object.id),
    attrs: { ...attrs.value, tenant: object.tenant },
    parents: [],
  };
  return { ok: true, entity };
}

/**
 * A call's arguments as one record, typed by the tool's schema: members the schema declares
 * `number` are `decimal`s, `integer` ones `Long`s; elsewhere whole numbers are `Long`s and
 * fractional ones `decimal`s. What cannot convert exactly refuses the request. Unless a policy
 * observes the record whole, only the arguments some policy names are sent: the others cannot
 * change a decision, and leaving them out keeps free text out of the engine and the memo.
 */
function argumentsRecord(args: CallArguments, reads: Reads) {
  const typing = { fractions: 'decimal', place: schemaPlace(args.schema) } as const;
  const values = reads.wholeArguments
    ? args.values
    : Object.fromEntries(Object.entries(args.values).filter(([key]) => reads.attributes.has(key)));
  return cedarRecord(values, `context.${ARGS}`, 0, typing);
}
