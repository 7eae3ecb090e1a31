/**
 * A pending command as execute stores it while the tool works, for the store and execute tests: a
 * call of the test deployment's `refund` (test/support/deployment).
 */
import type { PendingCommand } from '@toolgate/platform';

/** The pending command `commandId` of alice's refund in run-1, due at `deadlineMs`. */
export function pendingCommand(commandId: string, deadlineMs: number): PendingCommand {
  return {
    commandId,
    idempotencyKey: `key-${commandId}`,
    tenant: 'acme',
    subject: 'alice',
    tool: 'refund',
    proposalId: `p-${commandId}`,
    runId: 'run-1',
    requestId: 'req-1',
    callId: 'call-1',
    token: `p-${commandId}`,
    digest: 'd1',
    deadline: new Date(deadlineMs).toISOString(),
  };
}
