import { describe, expect, it } from 'vitest';
import {
  CeilingsConfigError,
  DEFAULT_CEILINGS,
  MAX_ARGUMENT_BYTES,
  MAX_ARGUMENT_DEPTH,
  MAX_RESULT_BYTES,
  MAX_TOOL_TIMEOUT_MS,
  resolveCeilings,
  type Ceilings,
} from './ceilings.js';

/** The error `resolveCeilings` throws for `input`, or a failure if it does not throw. */
function problemsOf(input: Record<string, unknown>): readonly string[] {
  try {
    resolveCeilings(input);
  } catch (error) {
    expect(error).toBeInstanceOf(CeilingsConfigError);
    return (error as CeilingsConfigError).problems;
  }
  expect.fail(`resolveCeilings accepted ${JSON.stringify(input)}`);
}

describe('DEFAULT_CEILINGS', () => {
  it('holds the defaults of DESIGN §7 and the brief', () => {
    expect(DEFAULT_CEILINGS).toEqual({
      argumentBytes: 16_384,
      maxDepth: 32,
      repairAttempts: 2,
      callsPerRun: 50,
      callsPerTenantPerSecond: 100,
      callsPerUserPerSecond: 50,
      resultBytes: 65_536,
      toolTimeoutMs: 10_000,
    });
    expect(Object.isFrozen(DEFAULT_CEILINGS)).toBe(true);
  });
});

describe('resolveCeilings', () => {
  it('fills what is not given from the defaults and freezes the result', () => {
    const ceilings = resolveCeilings({ callsPerRun: 10, repairAttempts: 0 });
    expect(ceilings).toEqual({ ...DEFAULT_CEILINGS, callsPerRun: 10, repairAttempts: 0 });
    expect(Object.isFrozen(ceilings)).toBe(true);
  });

  it('returns the defaults for empty input', () => {
    expect(resolveCeilings({})).toEqual(DEFAULT_CEILINGS);
  });

  it('names every problem at once, in field order', () => {
    const problems = problemsOf({
      argumentBytes: 0,
      maxDepth: 2.5,
      repairAttempts: -1,
      callsPerRun: '50',
      callsPerTenantPerSecond: Number.NaN,
      callsPerUserPerSecond: 0,
      resultBytes: Number.POSITIVE_INFINITY,
      toolTimeoutMs: 2 ** 31,
      callsPerRunn: 5,
    });
    expect(problems).toEqual([
      'argumentBytes must be an integer from 1 to 262144 (larger arguments would not fit a Kafka record), got 0',
      'maxDepth must be an integer from 1 to 60 (deeper arguments would not fit the nesting every message is read within), got 2.5',
      'repairAttempts must be an integer from 0 to 9007199254740991, got -1',
      'callsPerRun must be an integer from 1 to 9007199254740991, got "50"',
      'callsPerTenantPerSecond must be an integer from 1 to 9007199254740991, got NaN',
      'callsPerUserPerSecond must be an integer from 1 to 9007199254740991, got 0',
      'resultBytes must be an integer from 1 to 131072 (a larger output, escaped, would not fit a Kafka record), got Infinity',
      'toolTimeoutMs must be an integer from 1 to 86400000 (a command must end well before its idempotency record and pending command expire), got 2147483648',
      '"callsPerRunn" is not a ceiling',
    ]);
  });

  it('refuses an explicit undefined rather than silently using the default', () => {
    expect(problemsOf({ maxDepth: undefined })).toEqual([
      'maxDepth must be an integer from 1 to 60 (deeper arguments would not fit the nesting every message is read within), got undefined',
    ]);
  });

  it('keeps the byte ceilings within what one Kafka record carries, and says so', () => {
    expect(
      resolveCeilings({ argumentBytes: MAX_ARGUMENT_BYTES, resultBytes: MAX_RESULT_BYTES }),
    ).toMatchObject({ argumentBytes: 256 * 1024, resultBytes: 128 * 1024 });
    expect(problemsOf({ argumentBytes: MAX_ARGUMENT_BYTES + 1, resultBytes: 1 << 20 })).toEqual([
      'argumentBytes must be an integer from 1 to 262144 (larger arguments would not fit a Kafka record), got 262145',
      'resultBytes must be an integer from 1 to 131072 (a larger output, escaped, would not fit a Kafka record), got 1048576',
    ]);
  });

  it('refuses a depth ceiling deeper than the messages that carry the arguments can nest', () => {
    expect(resolveCeilings({ maxDepth: MAX_ARGUMENT_DEPTH }).maxDepth).toBe(60);
    expect(problemsOf({ maxDepth: 100 })).toEqual([
      'maxDepth must be an integer from 1 to 60 (deeper arguments would not fit the nesting every message is read within), got 100',
    ]);
  });

  it('refuses a tool timeout that would outlast what the gate keeps of a command', () => {
    expect(resolveCeilings({ toolTimeoutMs: MAX_TOOL_TIMEOUT_MS }).toolTimeoutMs).toBe(86_400_000);
    // Eight days: the pending command and the idempotency record (7 days) would expire first.
    expect(problemsOf({ toolTimeoutMs: 8 * 86_400_000 })).toEqual([
      'toolTimeoutMs must be an integer from 1 to 86400000 (a command must end well before its idempotency record and pending command expire), got 691200000',
    ]);
  });

  it('throws a non-retriable error with a stable code and every problem in the message', () => {
    expect(() => resolveCeilings({ maxDepth: 0, callsPerRun: 0 })).toThrow(
      expect.objectContaining({
        code: 'invalid_ceilings',
        retriable: false,
        message: expect.stringMatching(/maxDepth.*; callsPerRun/) as unknown,
      }),
    );
  });

  it('ignores inherited keys and does not read them as ceilings', () => {
    const input = Object.create({ callsPerRun: 0 }) as Partial<Ceilings>;
    expect(resolveCeilings(input)).toEqual(DEFAULT_CEILINGS);
  });
});
