import { describe, expect, it } from 'vitest';
import {
  checkProcessWords,
  findProcessWords,
  REPOSITORY_ROOT,
  scannedFiles,
} from './check-process-words.js';

describe('findProcessWords', () => {
  it('finds a planted phrase of the process, with its line', () => {
    const text = ['# Toolgate', '', 'Measured at stop 34 in the checkout of `c7d9383`.'].join('\n');
    expect(findProcessWords('README.md', text)).toEqual([
      { file: 'README.md', line: 3, phrase: 'stop 34' },
      { file: 'README.md', line: 3, phrase: 'checkout of' },
    ]);
  });

  it.each([
    'the targets of issue 6',
    'as issue #12 asks',
    'the levels the issue asks for',
    "that is the issue's requirement",
    'under the plan names',
    "in the team's checkout",
    'the work of session 3',
    'left over from an earlier session',
    'over several sessions of the team',
    'taken back in `9579efa`',
  ])('rejects %j', (line) => {
    expect(findProcessWords('docs/x.md', line)).not.toEqual([]);
  });

  it.each([
    'A session token (JWS) in the `toolgate-session` header.',
    'This session cannot be used here. Sign in again.',
    'The issue instant: `iat`.',
    'execute issues one command per call',
    'the stage loop stops its process',
    'stop the broker with `npm run stack:down` first',
  ])('accepts the product phrase %j', (line) => {
    expect(findProcessWords('docs/x.md', line)).toEqual([]);
  });
});

describe('checkProcessWords', () => {
  it('reads the README, docs and every package and service source', () => {
    const files = scannedFiles(REPOSITORY_ROOT);
    expect(files).toContain('README.md');
    expect(files).toContain('docs/topics.md');
    expect(files).toContain('packages/shared/src/decision.ts');
    expect(files).toContain('services/execute/src/service.ts');
  });

  it("finds no phrase of the team's process in product files", () => {
    const hits = checkProcessWords(REPOSITORY_ROOT);
    expect(hits.map((h) => `${h.file}:${h.line}: ${h.phrase}`)).toEqual([]);
  });
});
