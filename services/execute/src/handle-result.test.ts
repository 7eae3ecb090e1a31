import { describe, expect, it } from 'vitest';
import { createGateOutputs, gateTopics, type Incoming, type StageDeps } from '@toolgate/platform';
import { createMessageChecker } from '@toolgate/shared';
import { CommandsInFlight } from './commands-in-flight.js';
import { createResultHandler } from './handle-result.js';

const check = createMessageChecker();

function incoming(value: unknown): Incoming {
  return {
    topic: 'toolgate.results',
    partition: 0,
    offset: '7',
    key: 'run-1',
    headers: {},
    raw: Buffer.from(JSON.stringify(value)),
    receivedAt: new Date(),
    value,
  };
}

describe('a result that is no ToolResult', () => {
  it.each([
    ['an empty commandId', { commandId: '' }],
    ['an empty idempotencyKey', { idempotencyKey: '' }],
  ])(
    'with %s is audited as unmatched_result in a message the audit schema takes',
    async (_, bad) => {
      const deps = {
        outputs: createGateOutputs(gateTopics(''), 'k'.repeat(32)),
        now: () => new Date('2026-01-01T00:00:00Z'),
      } as unknown as StageDeps;
      const handle = createResultHandler(deps, check, new CommandsInFlight());
      const value = {
        commandId: 'cmd_1',
        idempotencyKey: 'key-1',
        runId: 'run-1',
        status: 'ok',
        output: 'x',
        completedAt: '2026-01-01T00:00:00.000Z',
        ...bad,
      };
      const out = await handle(incoming(value));
      expect(out).toHaveLength(1);
      const event = (out[0] as { value: Record<string, unknown> }).value;
      expect(event['kind']).toBe('unmatched_result');
      expect(check('audit', event)).toEqual([]);
    },
  );
});
