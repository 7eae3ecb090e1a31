/**
 * Renders the fault catalogue as the Markdown page `docs/fault-codes.md`, so the page and the code
 * cannot drift: `npm run docs:faults` writes it, and a test fails when it is stale.
 */
import { FAULT_CODES, type FaultSpec } from './fault-codes.js';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

const HEADER = [
  '# Fault codes',
  '',
  'A fault is the gate saying "I could not answer", as opposed to a refusal, which is an answer',
  '(see [rejection-codes.md](rejection-codes.md)). Every fault carries one of the codes below: in',
  'the log line (`code`, `retriable`), and as the `code` label of `toolgate_faults_total`.',
  '',
  'The code decides what happens next. **Retriable**: the stage pauses the partition and delivers',
  'the message again later; nothing moves forward meanwhile, and consumer lag grows. **Not',
  'retriable**: the call ends with an `internal_error` observation and audit event (the error in its',
  'internal detail), and the stage moves on. At start-up, a retriable fault is retried until a',
  'deadline; any other stops the process with the message.',
  '',
  'Generated from `packages/platform/src/fault-codes.ts` by `npm run docs:faults`; a test fails when',
  'this page and the catalogue differ.',
  '',
  '| code | retriable | raised by | what it means | what an operator does |',
  '|---|---|---|---|---|',
];

function row(code: string, spec: FaultSpec): string {
  const retriable = spec.retriable ? 'yes' : 'no';
  return `| \`${code}\` | ${retriable} | ${cell(spec.raisedBy)} | ${cell(spec.meaning)} | ${cell(spec.operator)} |`;
}

/** The whole Markdown page, ending in one newline. */
export function renderFaultCodes(): string {
  const rows = Object.entries(FAULT_CODES as Record<string, FaultSpec>).map(([code, spec]) =>
    row(code, spec),
  );
  return `${[...HEADER, ...rows].join('\n')}\n`;
}
