/**
 * The scripted approver: reads the gate's confirmation requests and answers each on the approvals
 * topic, as a person at an approval UI would, with the tenant's approver session. The benchmark's
 * approves everything; a chaos run's rejects some and leaves some to expire ({@link Decide}).
 */
import type { Bus, OutRecord } from '@toolgate/platform';
import { SESSION_HEADER } from '@toolgate/shared';
import { consume } from './consume.js';
import { decodeValue } from './traffic.js';

/** What the approver does with one request: approve, reject, or leave it (it expires). */
export type Decision = 'approve' | 'reject' | 'ignore';

/** Decides a confirmation request by its id. */
export type Decide = (confirmationId: string) => Decision;

/** Options of {@link startApprover}. */
export interface ApproverOptions {
  readonly bus: Bus;
  readonly groupId: string;
  readonly confirmationsTopic: string;
  readonly approvalsTopic: string;
  /** The approver's session token per tenant. */
  readonly approverTokens: Readonly<Record<string, string>>;
  /** Default: approve every request. */
  readonly decide?: Decide;
}

/** A running approver. */
export interface Approver {
  close(): Promise<void>;
}

/** Connects the approver; resolves once its consumer has joined its group. */
export async function startApprover(o: ApproverOptions): Promise<Approver> {
  const approvals = o.bus.producer();
  await approvals.connect();
  const decide = o.decide ?? (() => 'approve');
  const consumer = await consume(o.bus, o.groupId, [o.confirmationsTopic], async (batch) => {
    const records: OutRecord[] = [];
    for (const m of batch.messages) {
      const request = decodeValue(m.value);
      const token = o.approverTokens[String(request?.['tenant'])];
      if (request === undefined || token === undefined) continue;
      const confirmationId = String(request['confirmationId']);
      const decision = decide(confirmationId);
      if (decision === 'ignore') continue;
      records.push({
        topic: o.approvalsTopic,
        key: confirmationId,
        value: Buffer.from(JSON.stringify({ confirmationId, decision, digest: request['digest'] })),
        headers: { [SESSION_HEADER]: token },
      });
    }
    if (records.length > 0) await approvals.send(records);
  });
  return {
    async close() {
      await consumer.disconnect().catch(() => undefined);
      await approvals.disconnect().catch(() => undefined);
    },
  };
}
