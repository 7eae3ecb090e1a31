/**
 * The NDJSON contract of `toolgate evaluate`: one line per input, public fields only. The
 * internal detail of a refusal never leaves through this line.
 */
import { REJECTION_CODES } from '../catalogue.js';
import type { Evaluation } from './evaluate.js';

/** One output line of `toolgate evaluate`. */
export interface EvaluationLine {
  readonly proposalId: string | null;
  readonly disposition: string;
  readonly stage?: string;
  readonly code?: string;
  readonly publicMessage?: string;
  readonly command?: unknown;
  readonly replay?: true;
  readonly repair?: unknown;
  readonly confirmation?: unknown;
}

/** Maps a decision to its public line. */
export function toEvaluationLine(e: Evaluation): EvaluationLine {
  switch (e.kind) {
    case 'execute':
      return {
        proposalId: e.proposalId,
        disposition: 'execute',
        command: e.command,
        ...(e.replay ? { replay: true } : {}),
      };
    case 'confirm':
      return {
        proposalId: e.proposalId,
        disposition: 'confirm',
        stage: 'confirmation',
        code: 'pending',
        publicMessage: REJECTION_CODES.confirmation.pending.publicMessage,
        confirmation: { card: e.card, digest: e.digest },
      };
    case 'refused':
      return {
        proposalId: e.proposalId,
        disposition: e.rejected.disposition,
        stage: e.rejected.stage,
        code: e.rejected.code,
        publicMessage: e.rejected.publicMessage,
        ...(e.repair === undefined ? {} : { repair: e.repair }),
      };
  }
}
