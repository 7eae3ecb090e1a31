/**
 * Why a call waits for a person, in words: the tool's own rule (`ToolSpec.confirmationRule`), or a
 * default by side-effect class. The confirm stage stores it with the pending confirmation, and the
 * approval API shows it beside the card.
 */
import type { ToolSpec } from '../tool-spec.js';
import type { SideEffect } from '../types.js';
import { sideEffectDefaults } from './side-effect-defaults.js';

/** Longest `confirmationRule` a tool may give, in UTF-16 code units. */
export const MAX_CONFIRMATION_RULE_CHARS = 500;

/** The rule of a class whose calls always wait (destructive). */
export const ALWAYS_CONFIRMED_RULE = 'Destructive calls always wait for a person.';

/** The rule of a tool that asks for a person itself and says no more. */
export const TOOL_ASKS_RULE = 'This tool asks a person before it runs.';

/**
 * The rule for a tool of `sideEffect` that gives none: {@link ALWAYS_CONFIRMED_RULE} for a class
 * whose calls always wait, else {@link TOOL_ASKS_RULE}. With no class known (a record whose tool
 * is not loaded here) the tool's own asking is all that can be said.
 */
export function defaultConfirmationRule(sideEffect: SideEffect | undefined): string {
  return sideEffect !== undefined && sideEffectDefaults(sideEffect).confirmation === 'always'
    ? ALWAYS_CONFIRMED_RULE
    : TOOL_ASKS_RULE;
}

/** The tool's `confirmationRule`, else {@link defaultConfirmationRule} of its class. */
export function confirmationRuleOf(
  spec: Pick<ToolSpec, 'confirmationRule' | 'sideEffect'>,
): string {
  return spec.confirmationRule ?? defaultConfirmationRule(spec.sideEffect);
}
