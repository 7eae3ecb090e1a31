import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_LIMITS } from '../representation/parse-limits.js';
import { normalizeProposal } from '../representation/normalize-proposal.js';
import { MAX_REJECTION_REASON_CHARS } from './approval-views.js';
import { pending } from './messages.test-support.js';
import {
  amendedProposal,
  amendedProposalId,
  amendReason,
  changesArguments,
  readAmendBody,
} from './amend-call.js';

const parked = pending();
const DIGEST = 'd'.repeat(64);
const ARGS = { payment_id: 'pay_11', amount_cents: 900 };

describe('readAmendBody', () => {
  it('reads a digest, an object of arguments and an optional reason', () => {
    expect(readAmendBody({ digest: DIGEST, args: ARGS })).toEqual({
      ok: true,
      value: { digest: DIGEST, args: ARGS },
    });
    expect(readAmendBody({ digest: DIGEST, args: ARGS, reason: 'too much' })).toEqual({
      ok: true,
      value: { digest: DIGEST, args: ARGS, reason: 'too much' },
    });
  });

  it.each([
    ['no body', undefined, 'invalid_amend'],
    ['an array', [DIGEST], 'invalid_amend'],
    ['no digest', { args: ARGS }, 'invalid_amend'],
    ['an upper-case digest', { digest: 'D'.repeat(64), args: ARGS }, 'invalid_amend'],
    ['arguments that are not an object', { digest: DIGEST, args: [1] }, 'invalid_amend'],
    ['null arguments', { digest: DIGEST, args: null }, 'invalid_amend'],
    ['a reason that is not text', { digest: DIGEST, args: ARGS, reason: 7 }, 'invalid_reason'],
    ['a blank reason', { digest: DIGEST, args: ARGS, reason: '  ' }, 'invalid_reason'],
    ['a reason of two lines', { digest: DIGEST, args: ARGS, reason: 'a\nb' }, 'invalid_reason'],
    [
      'a reason that reorders its text (a bidirectional control)',
      { digest: DIGEST, args: ARGS, reason: 'refund \u202e00.002' },
      'invalid_reason',
    ],
    [
      'a reason that is too long',
      { digest: DIGEST, args: ARGS, reason: 'x'.repeat(MAX_REJECTION_REASON_CHARS + 1) },
      'invalid_reason',
    ],
  ])('refuses %s', (_, body, code) => {
    const read = readAmendBody(body);
    expect(read).toMatchObject({ ok: false, code });
    expect(read.ok ? '' : read.message).not.toBe('');
  });

  it('keeps a reason trimmed, as a rejection keeps its own', () => {
    const read = readAmendBody({ digest: DIGEST, args: ARGS, reason: '  Refund 9.00  ' });
    expect(read).toEqual({
      ok: true,
      value: { digest: DIGEST, args: ARGS, reason: 'Refund 9.00' },
    });
  });
});

describe('amendedProposalId', () => {
  it('is the same for the same change of the same confirmation, whatever the key order', () => {
    const id = amendedProposalId('conf_1', ARGS);
    expect(id).toMatch(/^amend_[0-9a-f]{32}$/);
    expect(amendedProposalId('conf_1', { amount_cents: 900, payment_id: 'pay_11' })).toBe(id);
  });

  it('differs for other arguments or another confirmation', () => {
    const id = amendedProposalId('conf_1', ARGS);
    expect(amendedProposalId('conf_1', { ...ARGS, amount_cents: 901 })).not.toBe(id);
    expect(amendedProposalId('conf_2', ARGS)).not.toBe(id);
  });
});

describe('amendReason', () => {
  it('names who changed the call and the proposal that carries it, then their reason', () => {
    expect(amendReason('bob', 'amend_1')).toBe('Changed by bob: replaced by proposal amend_1');
    expect(amendReason('bob', 'amend_1', ' too much ')).toBe(
      'Changed by bob: replaced by proposal amend_1. too much',
    );
  });

  it('is undefined when the whole would be longer than a rejection reason may be', () => {
    const said = 'Changed by bob: replaced by proposal amend_1. ';
    const fits = 'x'.repeat(MAX_REJECTION_REASON_CHARS - said.length);
    expect(amendReason('bob', 'amend_1', fits)).toHaveLength(MAX_REJECTION_REASON_CHARS);
    expect(amendReason('bob', 'amend_1', `${fits}x`)).toBeUndefined();
  });
});

describe('amendedProposal', () => {
  it('proposes the same tool on the same run with the changed arguments, as a first attempt', () => {
    // As the validate stage first reads it: the representation rung's envelope and call.
    const read = normalizeProposal(amendedProposal(parked, ARGS, 'amend_1'), DEFAULT_PARSE_LIMITS);
    expect(read).toMatchObject({
      ok: true,
      value: {
        proposal: {
          proposalId: 'amend_1',
          runId: 'run-7',
          requestId: 'req-42',
          format: 'mcp',
          attempt: 0,
          repairOf: null,
        },
        call: {
          callId: 'amend_1',
          tool: 'refund_payment',
          argumentsObject: { payment_id: 'pay_11', amount_cents: 900 },
        },
      },
    });
  });
});

describe('changesArguments', () => {
  it('tells changed arguments from the waiting ones, whatever the key order', () => {
    const same = Object.fromEntries(Object.entries(parked.args).reverse());
    expect(changesArguments(parked, same)).toBe(false);
    expect(changesArguments(parked, { ...parked.args, amount_cents: 1 })).toBe(true);
  });
});
