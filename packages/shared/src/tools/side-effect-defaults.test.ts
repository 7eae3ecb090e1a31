import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REJECTION_CODES } from '../catalogue.js';
import { needsConfirmation } from '../confirmation/needs-confirmation.js';
import { timeoutEnding } from '../messages/timeout-ending.js';
import type { ToolSpec } from '../tool-spec.js';
import type { SideEffect } from '../types.js';
import {
  isSideEffect,
  SIDE_EFFECT_CLASSES,
  SIDE_EFFECT_DEFAULTS,
  sideEffectDefaults,
} from './side-effect-defaults.js';
import { renderSideEffectDefaults } from './side-effect-defaults-doc.js';

const docPath = new URL('../../../../docs/side-effect-classes.md', import.meta.url);
const IDS = { proposalId: 'p-1', runId: 'run-1', requestId: 'req-1', callId: 'call-1' };
const NOW = new Date('2026-01-01T00:00:00Z');

const toolOf = (sideEffect: SideEffect): ToolSpec => ({
  name: 't',
  description: 'd',
  version: '1',
  sideEffect,
  input: { type: 'object', additionalProperties: false },
});

describe('SIDE_EFFECT_DEFAULTS', () => {
  it('matches docs/side-effect-classes.md (run `npm run docs:side-effects` after changing it)', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(renderSideEffectDefaults());
  });

  it('lets only a read be retried after a timeout, and scopes only its key to the proposal', () => {
    const retried = SIDE_EFFECT_CLASSES.filter(
      (c) => SIDE_EFFECT_DEFAULTS[c].onTimeout === 'retry',
    );
    expect(retried).toEqual(['read']);
    const perProposal = SIDE_EFFECT_CLASSES.filter(
      (c) => SIDE_EFFECT_DEFAULTS[c].idempotencyScope === 'proposal',
    );
    expect(perProposal).toEqual(['read']);
  });

  it('is what the confirmation rung asks of a tool that says nothing', () => {
    for (const c of SIDE_EFFECT_CLASSES) {
      const always = SIDE_EFFECT_DEFAULTS[c].confirmation === 'always';
      expect(needsConfirmation(toolOf(c), {}, new Map()), c).toBe(always);
    }
  });

  it('gives a class it does not know the most careful defaults', () => {
    expect(sideEffectDefaults(undefined)).toBe(SIDE_EFFECT_DEFAULTS.destructive);
    expect(sideEffectDefaults('toString' as SideEffect)).toBe(SIDE_EFFECT_DEFAULTS.destructive);
    expect(isSideEffect('constructor')).toBe(false);
    expect(isSideEffect('read')).toBe(true);
  });
});

describe('timeoutEnding', () => {
  it('tells a read it may retry: rejected, execution/timeout_retryable, retry', () => {
    const { observation, rejected } = timeoutEnding('read', IDS, NOW, 'slow');
    expect(observation).toMatchObject({
      outcome: 'rejected',
      disposition: 'retry',
      stage: 'execution',
      code: 'timeout_retryable',
      message: REJECTION_CODES.execution.timeout_retryable.publicMessage,
    });
    expect(rejected).toMatchObject({ code: 'timeout_retryable', internalDetail: 'slow' });
  });

  it.each([['write'], ['destructive'], [undefined]] as const)(
    'keeps a %s call unknown: unknown_outcome, do not repeat blindly',
    (sideEffect) => {
      const { observation, rejected } = timeoutEnding(sideEffect, IDS, NOW, 'slow');
      expect(observation).toMatchObject({
        outcome: 'unknown_outcome',
        disposition: 'deny',
        code: 'timeout_outcome_unknown',
      });
      expect(rejected.code).toBe('timeout_outcome_unknown');
    },
  );
});
