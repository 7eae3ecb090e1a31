/**
 * The schema of an observation: what the agent is told about its proposal. The conditions tie each
 * outcome to its disposition, rung and code, so the gate cannot publish a contradictory answer.
 */
import { DISPOSITIONS } from '../catalogue.js';
import { OUTCOMES } from '../types.js';
import {
  ALL_CODES,
  closed,
  codesByRung,
  count,
  instant,
  requires,
  rungField,
  text,
  when,
} from './schema-parts.js';

/** What the agent is told about one proposal, on `observations`. */
export const observationSchema = closed(
  'Observation',
  {
    proposalId: text,
    runId: text,
    requestId: text,
    callId: text,
    outcome: { enum: OUTCOMES },
    disposition: { enum: DISPOSITIONS },
    stage: rungField,
    code: { enum: ALL_CODES },
    message: text,
    repair: {
      type: 'object',
      additionalProperties: false,
      required: ['attempt', 'remaining', 'prompt'],
      properties: { attempt: { type: 'integer', minimum: 1 }, remaining: count, prompt: text },
    },
    confirmation: {
      type: 'object',
      additionalProperties: false,
      required: ['confirmationId', 'expiresAt'],
      properties: { confirmationId: text, expiresAt: instant },
    },
    result: {
      type: 'object',
      additionalProperties: false,
      required: ['content', 'withheld'],
      properties: { content: { type: 'string' }, withheld: { type: 'boolean' } },
    },
    replay: { type: 'boolean' },
    at: instant,
  },
  ['proposalId', 'runId', 'requestId', 'outcome', 'disposition', 'message', 'at'],
  {
    dependentRequired: { stage: ['code'], code: ['stage'] },
    allOf: [
      ...codesByRung(false),
      when({ outcome: { const: 'rejected' } }, requires('stage', 'code')),
      when(
        { outcome: { const: 'pending_confirmation' } },
        {
          ...requires('stage', 'code', 'confirmation'),
          properties: {
            disposition: { const: 'confirm' },
            stage: { const: 'confirmation' },
            code: { const: 'pending' },
            confirmation: true,
          },
        },
      ),
      when(
        { outcome: { const: 'expired' } },
        {
          properties: {
            disposition: { const: 'deny' },
            stage: { const: 'confirmation' },
            code: { const: 'expired' },
          },
          required: ['stage', 'code'],
        },
      ),
      when(
        { outcome: { const: 'unknown_outcome' } },
        {
          properties: {
            disposition: { const: 'deny' },
            stage: { const: 'execution' },
            code: { const: 'timeout_outcome_unknown' },
          },
          required: ['stage', 'code'],
        },
      ),
      when({ outcome: { const: 'result' } }, { properties: { disposition: { const: 'execute' } } }),
      {
        if: { properties: { outcome: { const: 'result' }, stage: false }, required: ['outcome'] },
        then: requires('result'),
      },
      when({ confirmation: true }, { properties: { outcome: { const: 'pending_confirmation' } } }),
      when({ result: true }, { properties: { outcome: { const: 'result' } } }),
      when(
        { repair: true },
        {
          properties: { outcome: { const: 'rejected' }, disposition: { const: 'repair' } },
        },
      ),
      when(
        { replay: true },
        {
          properties: { outcome: { enum: ['result', 'rejected', 'unknown_outcome'] } },
        },
      ),
    ],
  },
);
