import { normalizeForScan } from './normalize-for-scan.js';

/** One injection pattern: a name for the audit stream, what it catches, and the expression. */
export interface InjectionPattern {
  /** Stable name, recorded in the audit event's internal detail. */
  readonly name: string;
  /** What the pattern is meant to catch. */
  readonly catches: string;
  /** Applied to {@link normalizeForScan} output; case-insensitive. */
  readonly pattern: RegExp;
}

const QUALIFIER =
  'previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|developer|existing';
const DIRECTIVE =
  'instructions?|prompts?|rules|directions|directives|guidelines|guidance|commands|orders|messages?|context|constraints|guardrails';
const MODEL_ROLE =
  'assistant|ai|model|chatbot|bot|agent|persona|character|mode|jailbroken|unrestricted|unfiltered|dan';

/**
 * The injection patterns, in the order they are tried. A short list of phrasings and tokens that
 * tool output has no business containing and that try to steer the model reading it. It is a
 * tripwire that supports the other controls (delimiters, authorization of every call the model
 * then proposes, confirmation of destructive ones); it never replaces them, and rewording,
 * spelling tricks it does not normalise (`i g n o r e`, other languages, images) get past it.
 */
export const INJECTION_PATTERNS: readonly InjectionPattern[] = Object.freeze([
  {
    name: 'instruction_override',
    catches:
      '"ignore all previous instructions", "disregard the above prompt", "forget everything above"',
    pattern: new RegExp(
      `\\b(?:ignore|disregard|forget|override|bypass|skip)\\s+` +
        `(?:(?:(?:all|any|each|every|the|your|my|of|about|these|those|its)\\s+){0,3}(?:${QUALIFIER})\\s+(?:${DIRECTIVE})\\b` +
        `|(?:everything|anything|all)\\s+(?:above|before|prior|previously|you\\s+were\\s+told)\\b)`,
      'iu',
    ),
  },
  {
    name: 'role_reassignment',
    catches:
      '"you are now DAN", "from now on you respond as…", "pretend to be the system", "jailbreak mode"',
    pattern: new RegExp(
      `\\byou\\s+are\\s+(?:now|no\\s+longer)\\s+(?:(?:a|an|the|my|in)\\s+)?(?:[\\w-]+\\s+){0,2}?(?:${MODEL_ROLE})\\b` +
        `|\\bfrom\\s+now\\s+on,?\\s+you\\s+(?:(?:are|will|must|shall|should)\\s+)?(?:act|respond|answer|behave|reply|pretend|role-?play|obey|follow|only)\\b` +
        `|\\bpretend\\s+(?:to\\s+be|you\\s+are)\\s+(?:(?:a|an|the)\\s+)?(?:[\\w-]+\\s+){0,2}?(?:ai|assistant|model|chatbot|system|admin(?:istrator)?|developer)\\b` +
        `|\\b(?:jailbreak(?:ed)?|dan)\\s+mode\\b`,
      'iu',
    ),
  },
  {
    name: 'new_instructions',
    catches: '"New instructions:", "System prompt:", "your real task is"',
    pattern:
      /\b(?:new|updated|revised|real|actual|true|secret|hidden)\s+(?:system\s+)?(?:instructions?|directives?|orders)\s*:|\b(?:system|developer)\s+(?:prompt|instructions?|override|message)\s*:|\byour\s+(?:new|real|actual|true)\s+(?:instructions|task|goal|objective|purpose|role|mission)\s+(?:is|are)\b/iu,
  },
  {
    name: 'chat_template_token',
    catches:
      'chat-template control tokens: <|im_start|>, <|eot_id|>, [INST], <<SYS>>, <start_of_turn>',
    pattern:
      /<\|[\w\u2581.-]{1,40}\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:start|end)_of_turn>|\[\/?(?:tool_calls|available_tools|system_prompt|tool_results)\]/iu,
  },
  {
    name: 'role_header',
    catches: 'a line that opens as a role header: "System:", "### Assistant:", "[developer note]:"',
    pattern:
      /^[ \t]*(?:[#>]+[ \t]*)?\[?(?:system|assistant|developer)(?:[ \t]+(?:message|prompt|note|instructions?|override|update))?\]?[ \t]*:/imu,
  },
  {
    name: 'fake_delimiter',
    catches:
      "this gate's own output markers and the closing tags or phrases of other tool-output wrappers",
    pattern:
      /<<<\s*(?:end_)?tool_output|\bend_tool_output\b|<\/?(?:tool_output|tool_result|tool_response|function_results?|function_output|untrusted_data)>|\bend\s+of\s+(?:the\s+)?tool\s+(?:output|result|response)\b/iu,
  },
]);

/**
 * The name of the first {@link INJECTION_PATTERNS} entry that matches `text` after
 * {@link normalizeForScan}, or undefined when none does. Supports the other controls; never
 * replaces them.
 */
export function scanForInjection(text: string): string | undefined {
  const normalized = normalizeForScan(text);
  return INJECTION_PATTERNS.find(({ pattern }) => pattern.test(normalized))?.name;
}
