/**
 * `toolgate evaluate`: runs the whole ladder in-process for NDJSON proposals on stdin and writes
 * one NDJSON decision per input line. Never executes a tool; idempotency state lives for one run.
 */
import {
  createEvaluationState,
  evaluate,
  parseJsonBounded,
  rejecterFor,
  toEvaluationLine,
  type EvaluationLine,
  type EvaluationState,
  type Gate,
} from '@toolgate/shared';
import { requiredString, type Command } from '../command.js';
import { gateOf, loadDeployment } from '../load-deployment.js';
import { readLines } from '../read-lines.js';

/** An input line may be larger than one call's arguments: it carries the envelope and a token. */
const LINE_LIMITS = { maxBytes: 1024 * 1024, maxDepth: 64 } as const;

const rejectLine = rejecterFor('representation');

/** `toolgate evaluate --config <file>`. */
export const evaluateCommand: Command = {
  name: 'evaluate',
  summary: 'Run the whole ladder for NDJSON proposals on stdin; one NDJSON decision per line.',
  usage: 'toolgate evaluate --config <file> < proposals.ndjson',
  details: [
    'Each input line is {"session": "<compact JWS>", "proposal": {…}}; "session" may be absent.',
    'Each output line is {"proposalId", "disposition", "stage", "code", "publicMessage"} for a',
    'refusal, plus "command" when the disposition is execute, and "replay": true when it replays',
    'an earlier identical call of the same input. Nothing is ever executed.',
  ],
  options: {
    config: { type: 'string', description: 'the deployment configuration file (required)' },
  },
  async run({ values, io }) {
    const gate = gateOf(await loadDeployment(requiredString(values, 'config')), io.stderr);
    const state = createEvaluationState();
    for await (const line of readLines(io.stdin)) {
      io.stdout.write(`${JSON.stringify(await evaluateLine(line, gate, state))}\n`);
    }
    return 0;
  },
};

/** Decodes one input line (bounded, like any input) and runs the ladder on it. */
export async function evaluateLine(
  line: string,
  gate: Gate,
  state: EvaluationState,
  now = new Date(),
): Promise<EvaluationLine> {
  const parsed = parseJsonBounded(line, LINE_LIMITS);
  const input = parsed.ok ? parsed.value : undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    const rejected = rejectLine(
      'invalid_proposal',
      'Each input line must be one JSON object {"session", "proposal"}.',
      parsed.ok
        ? 'input line is not an object'
        : `input line: ${parsed.code}: ${parsed.internalDetail}`,
    );
    return toEvaluationLine({ kind: 'refused', proposalId: null, rejected });
  }
  const { session, proposal } = input as { session?: unknown; proposal?: unknown };
  return toEvaluationLine(
    await evaluate(
      { session: typeof session === 'string' ? session : undefined, proposal },
      gate,
      state,
      now,
    ),
  );
}
