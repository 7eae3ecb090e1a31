import { describe, expect, it } from 'vitest';
import { SILENT_LOGGER } from '../adapter-logger.js';
import type { Bus } from '../kafka/index.js';
import type { Codec } from '../codec.js';
import { loadConfig } from '../config.js';
import { FETCH_DEFAULTS, FETCH_LIMITS, fetchOptions } from '../config/fetch-settings.js';
import { generateObservationKeys } from '../gate-keys.js';
import { DEFAULT_RETRY_POLICY } from '../retry-backoff.js';
import { resolveStageLoopOptions, STAGE_LOOP_DEFAULTS, type StageLoopOptions } from './options.js';

/** The least a loop is given; the bus and codec are never used by the check. */
const BASE: StageLoopOptions = {
  stage: 'test',
  groupId: 'g',
  instanceId: 'i',
  topics: [{ name: 'in', plainJsonAllowed: false }],
  bus: {} as Bus,
  codec: {} as Codec,
  logger: SILENT_LOGGER,
  handle: () => Promise.resolve([]),
};

/** The least environment a stage loads. */
const ENV = {
  TOOLGATE_INTEGRITY_KEY: 'k'.repeat(32),
  TOOLGATE_OBSERVATION_KEY: generateObservationKeys().privateKey,
  TOOLGATE_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
  TOOLGATE_KAFKA_USERNAME: 'toolgate-validate',
  TOOLGATE_KAFKA_PASSWORD: 'kafka-password',
};

/** The problems of `options` on top of {@link BASE}; [] when they resolve. */
function problemsOf(options: Partial<StageLoopOptions>): readonly string[] {
  const outcome = resolveStageLoopOptions({ ...BASE, ...options });
  return outcome.ok ? [] : outcome.problems;
}

describe('resolveStageLoopOptions', () => {
  it('fills every default and freezes the options and their topics', () => {
    const outcome = resolveStageLoopOptions(BASE);
    if (!outcome.ok) throw new Error(outcome.problems.join('; '));
    const { options } = outcome;
    expect(options).toMatchObject({
      ...STAGE_LOOP_DEFAULTS,
      retry: DEFAULT_RETRY_POLICY,
      fromBeginning: true,
      fetchMinBytes: FETCH_DEFAULTS.minBytes,
      maxWaitTimeMs: FETCH_DEFAULTS.maxWaitMs,
      idleMaxWaitTimeMs: FETCH_DEFAULTS.idleMaxWaitMs,
      fetchBusyMinBytes: FETCH_DEFAULTS.busyMinBytes,
    });
    expect(Object.isFrozen(options)).toBe(true);
    expect(Object.isFrozen(options.topics)).toBe(true);
  });

  it('takes every option at the edges of its range', () => {
    expect(
      problemsOf({
        maxBatchMessages: 1,
        partitionsConcurrently: 1,
        keysConcurrently: 1,
        commitLingerMs: 0,
        stopTimeoutMs: 1,
        retry: { initialMs: 1, maxMs: 1 },
        fetchMinBytes: 1_048_576,
        maxWaitTimeMs: 1,
        idleMaxWaitTimeMs: 0,
        fetchBusyMinBytes: 1,
      }),
    ).toEqual([]);
  });

  it('names every option out of its range, with the range and the value, and clamps none', () => {
    expect(
      problemsOf({
        maxBatchMessages: 0,
        partitionsConcurrently: 1.5,
        commitLingerMs: -1,
        stopTimeoutMs: Number.NaN,
        sessionTimeoutMs: 0,
        retry: { initialMs: 0, maxMs: 10 },
        maxWaitTimeMs: 0,
        fetchMinBytes: 2_000_000,
        idleMaxWaitTimeMs: -1,
      }),
    ).toEqual([
      'maxBatchMessages must be an integer, at least 1 (got 0)',
      'partitionsConcurrently must be an integer, at least 1 (got 1.5)',
      'commitLingerMs must be an integer, at least 0 (got -1)',
      'stopTimeoutMs must be an integer, at least 1 (got NaN)',
      'sessionTimeoutMs must be an integer, at least 1 (got 0)',
      'retry.initialMs must be an integer, at least 1 (got 0)',
      'fetchMinBytes must be an integer, 1 to 1048576 (got 2000000)',
      'maxWaitTimeMs must be an integer, 1 to 10000 (got 0)',
      'idleMaxWaitTimeMs must be an integer, at least 0 (got -1)',
    ]);
  });

  it('takes the fetch settings of any configuration that loads, and the configuration refuses the rest', () => {
    const edges = {
      TOOLGATE_FETCH_MAX_WAIT_MS: FETCH_LIMITS.maxWaitTimeMs,
      TOOLGATE_FETCH_MIN_BYTES: FETCH_LIMITS.fetchMinBytes,
      TOOLGATE_FETCH_BUSY_MIN_BYTES: FETCH_LIMITS.fetchBusyMinBytes,
    };
    for (const [name, { minimum, maximum }] of Object.entries(edges)) {
      for (const value of [minimum, maximum]) {
        const config = loadConfig({ ...ENV, [name]: String(value) });
        expect(problemsOf(fetchOptions(config)), `${name}=${value}`).toEqual([]);
      }
      for (const value of [minimum - 1, maximum + 1]) {
        expect(() => loadConfig({ ...ENV, [name]: String(value) }), `${name}=${value}`).toThrow(
          name,
        );
      }
    }
  });
});
