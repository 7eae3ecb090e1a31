/**
 * The chaos run's verdict, from what it sent and injected and what the gate's topics and the tools'
 * effect log hold. Pure: `judge-run.ts` reads the records, this checks the invariants, attributes
 * each breach to the faults around it and measures how long each fault held the pipeline up.
 *
 * - `one_terminal`: a sent proposal with no terminal observation breaks it (unless it went only to
 *   quarantine, which answers bytes whose ids cannot be read with nothing), and so does one whose
 *   terminal observations disagree on the outcome. Repeats with the first's outcome are counted
 *   in `duplicateTerminals`, not as breaches.
 * - `no_effect_without_acceptance`: an effect breaks it when execute issued no command with its
 *   command id, when any terminal observation of the command's proposal refused it (`rejected`,
 *   `expired`: the agent was told nothing happened), or when the proposal needed a person's
 *   confirmation and the command names no approver.
 * - `one_effect_per_key`: an idempotency key (per tenant) with two effect entries breaks it.
 * - `nothing_lost`: a sent proposal with neither a terminal observation nor a quarantine record.
 *
 * A breach is dated by the send of the proposal it concerns (the effect's own time when no
 * proposal is known) and attributed to every fault whose window, widened by the margin on both
 * sides, holds that time: a proposal sent just before a fault is in flight when it strikes.
 */
import type { Observation } from '@toolgate/shared';
import type { StackConfig } from '../../infra/stack-config.js';
import { median } from '../core/stats.js';
import {
  FAULT_KINDS,
  INVARIANTS,
  type ChaosReport,
  type ChaosRunFacts,
  type FaultRow,
  type InjectedFault,
  type Invariant,
  type InvariantResult,
} from './chaos-facts.js';

/** An observation as the judge reads it. */
export interface SeenObservation {
  readonly proposalId: string;
  readonly outcome: Observation['outcome'];
  readonly stage?: string;
  readonly code?: string;
  /** When it was written, ms since the epoch. */
  readonly at: number;
}

/** A command execute issued. */
export interface SeenCommand {
  readonly commandId: string;
  readonly idempotencyKey: string;
  readonly tool: string;
  readonly tenant: string;
  readonly proposalId: string;
  /** The approver, for a confirmed call. */
  readonly confirmedBy?: string;
  readonly at: number;
}

/** A quarantine record, and the proposal it holds when its bytes still name one. */
export interface SeenQuarantine {
  readonly proposalId?: string;
  readonly at: number;
}

/** One entry of the tools' effect log. */
export interface SeenEffect {
  readonly idempotencyKey: string;
  readonly commandId: string;
  readonly proposalId: string;
  readonly tenant: string;
  readonly tool: string;
  readonly type: string;
  readonly id: string;
  readonly versionBefore: number;
  readonly versionAfter: number;
  readonly at: number;
}

/** Everything read back after the run. */
export interface RunRecords {
  /** The proposalIds on the proposals topic. */
  readonly proposals: readonly string[];
  readonly observations: readonly SeenObservation[];
  readonly commands: readonly SeenCommand[];
  /** The commandIds on the results topic. */
  readonly results: readonly string[];
  readonly quarantine: readonly SeenQuarantine[];
  /** The proposalIds of audit events (refusals and the rest). */
  readonly audit: readonly string[];
  readonly effects: readonly SeenEffect[];
}

/** The facts the verdict needs (a {@link ChaosRunFacts} is one). */
export type JudgedFacts = Pick<
  ChaosRunFacts,
  | 'mode'
  | 'seed'
  | 'rate'
  | 'startedAt'
  | 'endedAt'
  | 'faults'
  | 'sent'
  | 'instancesPerStage'
  | 'toolWorkers'
  | 'fencedRestarts'
> & { readonly stack: Pick<StackConfig, 'kafkaNodes' | 'redisCluster'> };

/** How far around a fault's window a breach or a hold-up still counts as its, by default: 30 s. */
export const DEFAULT_MARGIN_MS = 30_000;

/** Breaches listed per invariant, at most. */
const EXAMPLES = 5;

/** Options of {@link judge}. */
export interface JudgeOptions {
  /** When the report is made. */
  readonly now: Date;
  /** Default {@link DEFAULT_MARGIN_MS}. */
  readonly marginMs?: number;
}

/** Outcomes that tell the agent its call did not happen. */
const REFUSING: ReadonlySet<Observation['outcome']> = new Set(['rejected', 'expired']);

/** One breach: which invariant, when (for attribution), and a line naming it. */
interface Breach {
  readonly invariant: Invariant;
  readonly at: number;
  readonly text: string;
}

/** The verdict on a run. */
export function judge(facts: JudgedFacts, records: RunRecords, options: JudgeOptions): ChaosReport {
  const marginMs = options.marginMs ?? DEFAULT_MARGIN_MS;
  const sentAt = new Map(facts.sent.map((s) => [s.proposalId, s.sentAt]));
  const terminals = terminalsByProposal(records.observations);
  const quarantined = new Set(records.quarantine.flatMap((q) => q.proposalId ?? []));
  const answered = (id: string) => (terminals.get(id)?.length ?? 0) > 0;

  const terminal = checkTerminals(facts, terminals, quarantined);
  const lost = checkLost(facts, records, answered, quarantined);
  const accepted = checkAcceptance(facts, records, terminals);
  const perKey = checkKeys(records.effects, sentAt);
  const breaches = [...terminal.breaches, ...lost, ...accepted, ...perKey.breaches];

  const invariants = Object.fromEntries(
    INVARIANTS.map((inv) => {
      const mine = breaches.filter((b) => b.invariant === inv);
      const checked = {
        one_terminal: facts.sent.length,
        no_effect_without_acceptance: records.effects.length,
        one_effect_per_key: perKey.keys,
        nothing_lost: facts.sent.length,
      }[inv];
      const result: InvariantResult = {
        checked,
        broken: mine.length,
        examples: mine.slice(0, EXAMPLES).map((b) => b.text),
      };
      return [inv, result];
    }),
  ) as Record<Invariant, InvariantResult>;

  const unanswered = facts.sent.some((s) => !answered(s.proposalId));
  const times = records.observations
    .filter((o) => o.outcome !== 'pending_confirmation')
    .map((o) => o.at)
    .sort((a, b) => a - b);
  const stallEnd = unanswered ? facts.endedAt : undefined;
  const rows = FAULT_KINDS.flatMap((kind): FaultRow[] => {
    const injected = facts.faults.filter((f) => f.kind === kind);
    if (injected.length === 0) return [];
    const holdUps = injected.map((f) => holdUpOf(f, times, marginMs, stallEnd));
    return [
      {
        kind,
        injected: injected.length,
        overlapping: injected.filter((f) => f.overlapping).length,
        broken: countBy(breaches.filter((b) => injected.some((f) => near(f, b.at, marginMs)))),
        holdUpMs: { max: Math.max(...holdUps), median: median(holdUps) },
      },
    ];
  });
  const unattributed = countBy(
    breaches.filter((b) => !facts.faults.some((f) => near(f, b.at, marginMs))),
  );
  const paused = facts.faults.filter((f) => f.kind === 'stop_stage' || f.kind === 'stop_worker');

  return {
    at: options.now.toISOString(),
    mode: facts.mode,
    seed: facts.seed,
    rate: facts.rate,
    durationSeconds: Math.round((facts.endedAt - facts.startedAt) / 100) / 10,
    proposals: facts.sent.length,
    faults: facts.faults.length,
    instancesPerStage: facts.instancesPerStage,
    toolWorkers: facts.toolWorkers,
    kafkaNodes: facts.stack.kafkaNodes.length,
    redisCluster: facts.stack.redisCluster,
    invariants,
    duplicateTerminals: terminal.duplicates,
    rows,
    ok: breaches.length === 0,
    marginMs,
    unattributed,
    pauses: {
      count: paused.length,
      fencedOnWaking: paused.filter((f) => f.fencedOnWaking === true).length,
    },
    fencedElsewhere: (facts.fencedRestarts ?? []).map((f) => f.target),
    seen: {
      proposals: records.proposals.length,
      observations: records.observations.length,
      commands: records.commands.length,
      results: records.results.length,
      quarantine: records.quarantine.length,
      audit: records.audit.length,
      effects: records.effects.length,
    },
  };
}

/** The terminal observations of each proposal, in the order they were written. */
function terminalsByProposal(
  observations: readonly SeenObservation[],
): Map<string, SeenObservation[]> {
  const by = new Map<string, SeenObservation[]>();
  const ordered = [...observations].sort((a, b) => a.at - b.at);
  for (const o of ordered) {
    if (o.outcome === 'pending_confirmation') continue;
    const list = by.get(o.proposalId) ?? [];
    list.push(o);
    by.set(o.proposalId, list);
  }
  return by;
}

function checkTerminals(
  facts: JudgedFacts,
  terminals: ReadonlyMap<string, readonly SeenObservation[]>,
  quarantined: ReadonlySet<string>,
): { breaches: Breach[]; duplicates: { count: number; sameOutcome: number } } {
  const breaches: Breach[] = [];
  let count = 0;
  let sameOutcome = 0;
  for (const { proposalId, sentAt } of facts.sent) {
    const [first, ...again] = terminals.get(proposalId) ?? [];
    if (first === undefined) {
      if (!quarantined.has(proposalId))
        breaches.push({
          invariant: 'one_terminal',
          at: sentAt,
          text: `${proposalId}: no terminal observation`,
        });
      continue;
    }
    count += again.length;
    const same = again.filter((o) => o.outcome === first.outcome).length;
    sameOutcome += same;
    if (same < again.length)
      breaches.push({
        invariant: 'one_terminal',
        at: sentAt,
        text: `${proposalId}: terminal observations disagree: ${[first, ...again].map(said).join(', then ')}`,
      });
  }
  return { breaches, duplicates: { count, sameOutcome } };
}

function checkLost(
  facts: JudgedFacts,
  records: RunRecords,
  answered: (id: string) => boolean,
  quarantined: ReadonlySet<string>,
): Breach[] {
  const arrived = new Set(records.proposals);
  const audited = new Set(records.audit);
  return facts.sent
    .filter((s) => !answered(s.proposalId) && !quarantined.has(s.proposalId))
    .map((s) => {
      const where = !arrived.has(s.proposalId)
        ? 'not on the proposals topic'
        : audited.has(s.proposalId)
          ? 'audited, never answered'
          : 'on the proposals topic, never answered';
      return { invariant: 'nothing_lost', at: s.sentAt, text: `${s.proposalId}: ${where}` };
    });
}

function checkAcceptance(
  facts: JudgedFacts,
  records: RunRecords,
  terminals: ReadonlyMap<string, readonly SeenObservation[]>,
): Breach[] {
  const commands = new Map(records.commands.map((c) => [c.commandId, c]));
  const sent = new Map(facts.sent.map((s) => [s.proposalId, s]));
  const breaches: Breach[] = [];
  for (const e of records.effects) {
    const command = commands.get(e.commandId);
    const proposalId = command?.proposalId ?? e.proposalId;
    const proposal = sent.get(proposalId);
    const at = proposal?.sentAt ?? e.at;
    const what = `${effectText(e)} for ${proposalId}`;
    const breach = (why: string) =>
      breaches.push({ invariant: 'no_effect_without_acceptance', at, text: `${what}: ${why}` });
    if (command === undefined) {
      breach(`execute issued no command ${e.commandId}`);
      continue;
    }
    const refused = terminals.get(proposalId)?.find((o) => REFUSING.has(o.outcome));
    if (refused !== undefined) breach(`the call was answered ${said(refused)}`);
    else if (proposal?.expected.kind === 'confirm' && command.confirmedBy === undefined)
      breach(`the call needed confirmation; command ${command.commandId} names no approver`);
  }
  return breaches;
}

function checkKeys(
  effects: readonly SeenEffect[],
  sentAt: ReadonlyMap<string, number>,
): { keys: number; breaches: Breach[] } {
  const byKey = new Map<string, SeenEffect[]>();
  for (const e of effects) {
    const k = `${e.tenant}\u0000${e.idempotencyKey}`;
    byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  const breaches: Breach[] = [];
  for (const list of byKey.values()) {
    const [first] = list;
    if (first === undefined || list.length < 2) continue;
    breaches.push({
      invariant: 'one_effect_per_key',
      at: Math.min(...list.map((e) => sentAt.get(e.proposalId) ?? e.at)),
      text: `key ${first.idempotencyKey} (${first.tenant}): ${list.length} effects: ${list.map(effectText).join('; ')}`,
    });
  }
  return { keys: byKey.size, breaches };
}

/** True when `at` falls within `fault`'s window widened by `marginMs` on both sides. */
function near(fault: InjectedFault, at: number, marginMs: number): boolean {
  return at >= fault.injectedAt - marginMs && at <= fault.recoveredAt + marginMs;
}

/**
 * The longest gap in terminal observations (`times`, ascending) that begins in the fault's window
 * [injectedAt, recoveredAt + margin]: the wait from the injection to the next observation, then
 * each gap from an observation in the window to the next. A gap with no observation after it
 * ends at `stallEnd` (the run's end, when some proposal was never answered) or is not counted
 * (the load was over).
 */
export function holdUpOf(
  fault: InjectedFault,
  times: readonly number[],
  marginMs: number,
  stallEnd?: number,
): number {
  const end = fault.recoveredAt + marginMs;
  const gapTo = (from: number, next: number | undefined) =>
    next !== undefined ? next - from : stallEnd !== undefined ? Math.max(0, stallEnd - from) : 0;
  let i = times.findIndex((t) => t >= fault.injectedAt);
  if (i === -1) return gapTo(fault.injectedAt, undefined);
  let longest = gapTo(fault.injectedAt, times[i]);
  for (; i < times.length && (times[i] as number) <= end; i += 1)
    longest = Math.max(longest, gapTo(times[i] as number, times[i + 1]));
  return longest;
}

function countBy(breaches: readonly Breach[]): Record<Invariant, number> {
  return Object.fromEntries(
    INVARIANTS.map((inv) => [inv, breaches.filter((b) => b.invariant === inv).length]),
  ) as Record<Invariant, number>;
}

function said(o: SeenObservation): string {
  const why = [o.stage, o.code].filter((x) => x !== undefined).join('/');
  return why === '' ? o.outcome : `${o.outcome} (${why})`;
}

function effectText(e: SeenEffect): string {
  return `${e.tool} on ${e.type} ${e.id} v${e.versionBefore}→${e.versionAfter} by ${e.commandId}`;
}
