/** A valid command for the unit tests, as the execute stage would issue it. */
import type { Command } from '@toolgate/shared';

/** An approve_invoice command for acme's inv_481 at version 1, due in 2030. */
export function sampleCommand(overrides: Partial<Command> = {}): Command {
  return {
    commandId: 'cmd_0123456789abcdef0123456789abcdef',
    idempotencyKey: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    tool: 'approve_invoice',
    toolVersion: '1',
    args: { invoice_id: 'inv_481', status: 'approved' },
    context: {
      subject: 'alice',
      tenant: 'acme',
      requestId: 'req-1',
      runId: 'run-1',
      proposalId: 'p-1',
      callId: 'call-1',
    },
    objects: [{ type: 'Invoice', id: 'inv_481', version: 1 }],
    deadline: '2030-01-01T00:00:30.000Z',
    issuedAt: '2030-01-01T00:00:00.000Z',
    ...overrides,
  };
}
