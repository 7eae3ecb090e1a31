import { describe, expect, it } from 'vitest';
import {
  createGateOutputs,
  generateOutputKeys,
  gateTopics,
  type Incoming,
  type StageDeps,
} from '@toolgate/platform';
import {
  createMessageChecker,
  deriveToolKey,
  PROOF_HEADER,
  TOOL_OUTCOME_UNKNOWN,
  toolProof,
} from '@toolgate/shared';
import { CommandsInFlight } from './commands-in-flight.js';
import { createResultHandler } from './handle-result.js';

const check = createMessageChecker();
const keys = generateOutputKeys();
const config = { commandKey: keys.commandKey, commandKeysAccepted: [] };

/** `value` as read from `results`, proved with the key of `tool` as its worker proves it. */
function incoming(value: unknown, tool = 'search'): Incoming {
  const raw = Buffer.from(JSON.stringify(value));
  const proof = toolProof(deriveToolKey(keys.commandKey, tool), 'toolgate.results', raw);
  return {
    topic: 'toolgate.results',
    partition: 0,
    offset: '7',
    key: 'run-1',
    headers: { [PROOF_HEADER]: proof },
    raw,
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
        outputs: createGateOutputs(gateTopics(''), keys, new Set(['acme', 'globex'])),
        config,
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

describe('a result that says the tool did not finish in time', () => {
  it.each([
    ['write', TOOL_OUTCOME_UNKNOWN, 'unknown_outcome', 'timeout_outcome_unknown'],
    ['destructive', TOOL_OUTCOME_UNKNOWN, 'unknown_outcome', 'timeout_outcome_unknown'],
    ['read', TOOL_OUTCOME_UNKNOWN, 'rejected', 'timeout_retryable'],
    ['read', 'deadline_exceeded', 'rejected', 'timeout_retryable'],
    ['write', 'deadline_exceeded', 'result', 'tool_error'],
  ])(
    'of a %s tool (%s) is audited with the outcome it publishes: %s, %s',
    async (sideEffect, code, outcome, why) => {
      const pending = {
        commandId: 'cmd_1',
        idempotencyKey: 'key-1',
        tenant: 'acme',
        subject: 'alice',
        tool: 'search',
        proposalId: 'p-1',
        runId: 'run-1',
        requestId: 'req-1',
        callId: 'call-1',
        token: 'p-1',
        digest: 'd'.repeat(64),
        deadline: '2026-01-01T00:01:00.000Z',
      };
      const deps = {
        outputs: createGateOutputs(gateTopics(''), keys, new Set(['acme', 'globex'])),
        config,
        now: () => new Date('2026-01-01T00:00:00Z'),
        metrics: { decision: () => undefined, forgery: () => undefined },
        gate: { registry: { get: () => ({ resultMaxBytes: 1000, spec: { sideEffect } }) } },
        pendingCommands: {
          peekPendingCommand: () => Promise.resolve(pending),
          takeAndSettle: () =>
            Promise.resolve({ outcome: 'taken', settled: true, previous: undefined }),
        },
      } as unknown as StageDeps;
      const handle = createResultHandler(deps, check, new CommandsInFlight());
      const out = await handle(
        incoming({
          commandId: 'cmd_1',
          idempotencyKey: 'key-1',
          runId: 'run-1',
          status: 'error',
          error: { code, message: 'no idea' },
          completedAt: '2026-01-01T00:00:00.000Z',
        }),
      );
      const values = out.map((o) => (o as { value: Record<string, unknown> }).value);
      const observation = values.find((v) => 'message' in v);
      const audit = values.find((v) => 'eventId' in v);
      expect(observation).toMatchObject({ outcome, code: why });
      expect(audit?.['outcome']).toBe(observation?.['outcome']);
      expect(check('observations', observation)).toEqual([]);
      expect(check('audit', audit)).toEqual([]);
    },
  );
});
