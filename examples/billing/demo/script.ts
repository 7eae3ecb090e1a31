/**
 * The scripted agents' notebook: sends proposals through the agent clients (each through its
 * session's tenant's own), records for each one what the workload expected and what came back,
 * drives the scripted approver when a call waits for a person, and collects the extra checks and
 * audit events the demo must find afterwards.
 */
import type { AgentClient, CallOptions, RepairLoopOptions } from '@toolgate/agent-client';
import { runWithRepair } from '@toolgate/agent-client';
import type { ConfirmationRequest, Observation, ObjectStore, Proposal } from '@toolgate/shared';
import type { ApprovalApi } from './approval-api.js';
import type { DemoObjectIds } from './demo-objects.js';
import type { AuditExpectation, AuditMatch, Check, Expected, Step } from './expectations.js';

/** Session tokens of the example's users, and two bad ones. */
export interface DemoSessions {
  readonly alice: string;
  readonly bob: string;
  readonly carol: string;
  /** alice's, expired an hour ago. */
  readonly expired: string;
  /** alice's claims, signed with a key the gate does not know. */
  readonly forged: string;
}

/** What the script works with. */
export interface ScriptDeps {
  /** Sends with alice's session unless told otherwise, through the session's tenant's client. */
  readonly client: Pick<AgentClient, 'call'>;
  readonly sessions: DemoSessions;
  readonly approvals: ApprovalApi;
  /** Reads objects as the gate resolves them, to check what the tools changed. */
  readonly objects: Pick<ObjectStore, 'load'>;
  readonly ids: DemoObjectIds;
  readonly runTag: string;
  /** How long to wait for one terminal observation, in ms. */
  readonly timeoutMs: number;
}

/** What a person does with a confirmation card. */
export type PersonAct = (request: ConfirmationRequest) => Promise<void>;

/** The script's record of one run. */
export class Script {
  readonly steps: Step[] = [];
  readonly checks: Check[] = [];
  readonly audits: AuditExpectation[] = [];
  /** Confirmations this run asked for, so approval events without a run id count as this run's. */
  readonly confirmationIds = new Set<string>();
  private sequence = 0;

  constructor(readonly deps: ScriptDeps) {}

  /** The run id of a scenario: `demo-<tag>-<scenario>`. */
  runId(scenario: string): string {
    return `demo-${this.deps.runTag}-${scenario}`;
  }

  /** Fresh ids for one proposal of `scenario`; `extra` overrides (e.g. a call id to reuse). */
  ids(
    scenario: string,
    extra: { readonly requestId?: string; readonly callId?: string } = {},
  ): { proposalId: string; runId: string; requestId: string; callId?: string } {
    this.sequence += 1;
    const n = this.sequence;
    return {
      proposalId: `${this.deps.runTag}-p${n}`,
      runId: this.runId(scenario),
      requestId: `req-${this.deps.runTag}-${n}`,
      ...extra,
    };
  }

  /** Sends `proposal` and records its terminal observation against `expected`. */
  async expect(
    scenario: string,
    label: string,
    proposal: Proposal,
    expected: Expected,
    options: CallOptions = {},
  ): Promise<Observation | undefined> {
    const { proposalId } = proposal;
    try {
      const observed = await this.deps.client.call(proposal, {
        timeoutMs: this.deps.timeoutMs,
        ...options,
      });
      this.steps.push({ scenario, label, proposalId, expected, observed });
      return observed;
    } catch (error) {
      this.steps.push({ scenario, label, proposalId, expected, error: messageOf(error) });
      return undefined;
    }
  }

  /**
   * Sends a call that waits for a person; once its `pending_confirmation` arrives, `act` plays
   * the people who look at the card (as `reader` sees it on GET /pending).
   */
  async expectWithPerson(
    scenario: string,
    label: string,
    proposal: Proposal,
    expected: Expected,
    reader: string,
    act: PersonAct,
  ): Promise<void> {
    let acting: Promise<void> = Promise.resolve();
    const onPending = (o: Observation) => {
      const id = o.confirmation?.confirmationId;
      if (id === undefined) return;
      this.confirmationIds.add(id);
      acting = this.deps.approvals
        .waiting(reader, id)
        .then(act)
        .catch((error: unknown) => {
          this.check(scenario, `${label}: the approver acts`, false, messageOf(error));
        });
    };
    await this.expect(scenario, label, proposal, expected, { onPending });
    await acting;
  }

  /**
   * Runs the agent client's repair loop from `first` and records its observations, in order,
   * against `expected` (one per submission, corrections included).
   */
  async expectRepairs<R>(
    scenario: string,
    label: string,
    loop: Omit<RepairLoopOptions<R>, 'client' | 'callOptions'>,
    expected: readonly Expected[],
  ): Promise<void> {
    let seen: Observation[] = [];
    let error: string | undefined;
    try {
      seen = (
        await runWithRepair({
          ...loop,
          client: this.deps.client,
          callOptions: { timeoutMs: this.deps.timeoutMs },
        })
      ).filter((o) => o.outcome !== 'pending_confirmation');
    } catch (e) {
      error = messageOf(e);
    }
    expected.forEach((want, i) => {
      const observed = seen[i];
      const step = `${label} (attempt ${i})`;
      const proposalId = observed?.proposalId ?? `${label}#${i}`;
      this.steps.push(
        observed === undefined
          ? {
              scenario,
              label: step,
              proposalId,
              expected: want,
              error: error ?? 'the loop stopped',
            }
          : { scenario, label: step, proposalId, expected: want, observed },
      );
    });
    if (seen.length > expected.length) {
      this.check(scenario, label, false, `${seen.length} submissions, ${expected.length} expected`);
    }
  }

  /** Records a check of the world. */
  check(scenario: string, label: string, ok: boolean, detail: string): void {
    this.checks.push({ scenario, label, ok, detail });
  }

  /** Requires an audit event matching `match` (besides those each step implies). */
  auditMust(scenario: string, label: string, match: AuditMatch): void {
    this.audits.push({ scenario, label, match });
  }

  /** A person (by session token) deciding the card they see. */
  person(token: string, decision: 'approve' | 'reject'): PersonAct {
    return async (request) => {
      const status = await this.deps.approvals.decide(
        token,
        request.confirmationId,
        decision,
        request.digest,
      );
      if (status !== 202) throw new Error(`POST ${decision} answered ${status}, not 202`);
    };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
