/**
 * The ladder taken apart: each entry of the mix is walked up the rungs once, the input of every
 * rung it reaches is kept, and each rung can then be timed alone over exactly the inputs it sees
 * in the real ladder. The walk mirrors `evaluate` (packages/shared/src/ladder/evaluate.ts).
 */
import {
  authorizeCall,
  byId,
  buildCommand,
  checkSchema,
  checkSemantics,
  createSessionVerifier,
  identityOf,
  normalizeProposal,
  parseCall,
  planConfirmation,
  referencesOf,
  toolOf,
  validateProposal,
  authorizeProposal,
  type AuthorizedProposal,
  type AuthzRequest,
  type CheckedCall,
  type Gate,
  type NormalizedCall,
  type ObjectsById,
  type ParseLimits,
  type ParsedCall,
  type ResolvedObject,
  type Principal,
  type Tool,
  type ValidatedProposal,
} from '@toolgate/shared';
import type { MixEntry } from './build-mix.js';
import { arrivalsOf, type BillingBench } from './create-billing-bench.js';
import { EXAMPLE_SESSION_ISSUER } from '../../examples/billing/toolgate.config.js';

/** What each rung receives over one pass of the mix. */
export interface RungInputs {
  readonly verify: readonly { readonly token: string | undefined; readonly now: Date }[];
  readonly normalize: readonly unknown[];
  readonly parse: readonly NormalizedCall[];
  readonly schema: readonly ParsedCall[];
  readonly semantics: readonly CheckedCall[];
  readonly resolve: readonly { readonly v: ValidatedProposal; readonly tool: Tool }[];
  readonly authorize: readonly AuthzRequest[];
  readonly preconditions: readonly Preconditioned[];
  readonly confirm: readonly { readonly a: AuthorizedProposal; readonly tool: Tool }[];
  readonly command: readonly Commanded[];
}

interface Preconditioned {
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
  readonly objects: ObjectsById;
}

interface Commanded {
  readonly a: AuthorizedProposal;
  readonly now: Date;
  readonly timeoutMs: number;
  /** False for a replay, which the ladder answers from the stored record. */
  readonly build: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer E)[] ? E[] : T[K] };

/** Walks every entry up the ladder and collects each rung's inputs. */
export async function stageRungs(
  mix: readonly MixEntry[],
  bench: BillingBench,
): Promise<RungInputs> {
  const inputs: Mutable<RungInputs> = {
    verify: [],
    normalize: [],
    parse: [],
    schema: [],
    semantics: [],
    resolve: [],
    authorize: [],
    preconditions: [],
    confirm: [],
    command: [],
  };
  const arrivals = arrivalsOf(mix);
  for (const [i, entry] of mix.entries()) {
    const now = arrivals[i] ?? new Date(0);
    const token = bench.tokens[entry.user];
    inputs.verify.push({ token, now });
    const principal = await bench.gate.verifier.verify(token, now);
    if (!principal.ok) continue;
    const v = validate(entry.proposal, principal.value, bench.gate, inputs);
    if (v !== undefined) await authorize(v, entry, now, bench.gate, inputs);
  }
  return inputs;
}

/** The parse limits `evaluate` derives from the ceilings. */
export function limitsOf(gate: Gate): ParseLimits {
  return { maxBytes: gate.ceilings.argumentBytes, maxDepth: gate.ceilings.maxDepth };
}

function validate(
  proposal: unknown,
  principal: Principal,
  gate: Gate,
  inputs: Mutable<RungInputs>,
): ValidatedProposal | undefined {
  const limits = limitsOf(gate);
  inputs.normalize.push(proposal);
  const normalized = normalizeProposal(proposal, limits);
  if (!normalized.ok) return undefined;
  inputs.parse.push(normalized.value.call);
  const parsed = parseCall(normalized.value.call, limits);
  if (!parsed.ok) return undefined;
  inputs.schema.push(parsed.value);
  const checked = checkSchema(parsed.value, gate.registry);
  if (!checked.ok) return undefined;
  inputs.semantics.push(checked.value);
  if (!checkSemantics(checked.value).ok) return undefined;
  const facts = { registry: gate.registry, limits, repairBudget: gate.ceilings.repairAttempts };
  const whole = validateProposal(proposal, principal, facts);
  return whole.ok ? whole.value : undefined;
}

async function authorize(
  v: ValidatedProposal,
  entry: MixEntry,
  now: Date,
  gate: Gate,
  inputs: Mutable<RungInputs>,
): Promise<void> {
  const tool = toolOf(v, gate.registry);
  if (!tool.ok) return;
  inputs.resolve.push({ v, tool: tool.value });
  const refs = referencesOf(v, tool.value);
  const loaded = await Promise.all(refs.map((ref) => gate.objects.load(v.context.tenant, ref)));
  const objects: ResolvedObject[] = [];
  for (const o of loaded) if (o !== undefined && o.tenant === v.context.tenant) objects.push(o);
  if (objects.length !== refs.length) return;
  const { name, spec } = tool.value;
  const request = { principal: v.context, tool: { name, sideEffect: spec.sideEffect }, objects };
  inputs.authorize.push(request);
  if (!authorizeCall(request, gate.policies).ok) return;
  inputs.preconditions.push({ tool: tool.value, args: v.args, objects: byId(objects) });
  const counts = { callsInRun: 1, tenantCallsThisSecond: 1 };
  const facts = {
    registry: gate.registry,
    policies: gate.policies,
    ceilings: gate.ceilings,
    counts,
  };
  const a = authorizeProposal(v, tool.value, loaded, facts);
  if (!a.ok) return;
  inputs.confirm.push({ a: a.value, tool: tool.value });
  if (planConfirmation(a.value, tool.value).needed) return;
  const build = !(entry.expected.kind === 'execute' && entry.expected.replay);
  inputs.command.push({ a: a.value, now, timeoutMs: tool.value.timeoutMs, build });
}

/** One rung, timed alone: its name, how many calls a pass makes, and one pass. */
export interface Rung {
  readonly name: string;
  readonly calls: number;
  /** Runs every input once; returns a count so that no call can be optimised away. */
  readonly pass: () => number | Promise<number>;
}

/** The rungs of the ladder in the order a proposal climbs them, over `inputs`. */
export function rungsOf(inputs: RungInputs, gate: Gate): Rung[] {
  const limits = limitsOf(gate);
  const sync = <T>(name: string, items: readonly T[], run: (item: T) => boolean): Rung => ({
    name,
    calls: items.length,
    pass: () => {
      let n = 0;
      for (const item of items) n += run(item) ? 1 : 0;
      return n;
    },
  });
  return [
    verifyRung('verify (cached)', inputs, gate),
    sync('normalizeProposal', inputs.normalize, (p) => normalizeProposal(p, limits).ok),
    sync('parseCall', inputs.parse, (c) => parseCall(c, limits).ok),
    sync('checkSchema', inputs.schema, (c) => checkSchema(c, gate.registry).ok),
    sync('checkSemantics', inputs.semantics, (c) => checkSemantics(c).ok),
    resolutionRung(inputs, gate),
    sync('authorizeCall (Cedar)', inputs.authorize, (r) => authorizeCall(r, gate.policies).ok),
    sync('preconditions', inputs.preconditions, (p) => {
      return p.tool.spec.preconditions?.(p.args, p.objects) === undefined;
    }),
    sync('planConfirmation', inputs.confirm, (c) => planConfirmation(c.a, c.tool).needed),
    sync('identityOf + buildCommand', inputs.command, (c) => {
      const { key } = identityOf(c.a);
      return !c.build || buildCommand(c.a, key, c).idempotencyKey === key;
    }),
  ];
}

/** Session verification without the cache: what every proposal would pay if nothing were kept. */
export function uncachedVerifyRung(inputs: RungInputs, bench: BillingBench): Rung {
  const verifier = createSessionVerifier(
    { secret: bench.secret, issuer: EXAMPLE_SESSION_ISSUER },
    { cacheSize: 0 },
  );
  return verifyRung('verify (uncached HS256)', inputs, { ...bench.gate, verifier });
}

function verifyRung(name: string, inputs: RungInputs, gate: Gate): Rung {
  return {
    name,
    calls: inputs.verify.length,
    pass: async () => {
      let ok = 0;
      for (const { token, now } of inputs.verify)
        ok += (await gate.verifier.verify(token, now)).ok ? 1 : 0;
      return ok;
    },
  };
}

function resolutionRung(inputs: RungInputs, gate: Gate): Rung {
  return {
    name: 'resolution (memory store)',
    calls: inputs.resolve.length,
    pass: async () => {
      let found = 0;
      for (const { v, tool } of inputs.resolve) {
        const refs = referencesOf(v, tool);
        const loaded = await Promise.all(refs.map((r) => gate.objects.load(v.context.tenant, r)));
        found += loaded.length;
      }
      return found;
    },
  };
}
