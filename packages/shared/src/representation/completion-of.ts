/**
 * Maps a provider's finish word to how the completion ended. One table for every provider: routers
 * rewrite these words (an Anthropic `max_tokens` may arrive as `length`), so a word that means
 * "cut off" anywhere means it everywhere.
 */
import type { Completion } from '../types.js';

/**
 * `truncated` means the completion did not end by the model's own choice, so the call may be
 * incomplete: the token limit (`length`, `max_tokens`, `model_context_window_exceeded`), the
 * Responses statuses `incomplete`, `in_progress`, `queued`, `failed`, `cancelled`, Anthropic's
 * `pause_turn` and `refusal`, and `content_filter` (the provider cut the output; what is there is
 * not the whole call, and it must never run as if it were).
 */
const WORDS: ReadonlyMap<string, Completion> = new Map<string, Completion>([
  ['stop', 'complete'],
  ['tool_calls', 'complete'],
  ['function_call', 'complete'],
  ['end_turn', 'complete'],
  ['tool_use', 'complete'],
  ['completed', 'complete'],
  ['length', 'truncated'],
  ['max_tokens', 'truncated'],
  ['model_context_window_exceeded', 'truncated'],
  ['content_filter', 'truncated'],
  ['incomplete', 'truncated'],
  ['in_progress', 'truncated'],
  ['queued', 'truncated'],
  ['failed', 'truncated'],
  ['cancelled', 'truncated'],
  ['pause_turn', 'truncated'],
  ['refusal', 'truncated'],
]);

/**
 * How the completion ended according to the provider's word (case and surrounding space ignored).
 * Absent or unknown words (`stop_sequence` among them) are `unknown`: the structure decides.
 */
export function completionOf(word: string | null | undefined): Completion {
  if (typeof word !== 'string') return 'unknown';
  return WORDS.get(word.trim().toLowerCase()) ?? 'unknown';
}

/** The more cautious of two readings: truncated beats complete, which beats unknown. */
export function worseCompletion(a: Completion, b: Completion): Completion {
  if (a === 'truncated' || b === 'truncated') return 'truncated';
  return a === 'complete' || b === 'complete' ? 'complete' : 'unknown';
}
