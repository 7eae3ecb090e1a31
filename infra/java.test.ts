import { describe, expect, it } from 'vitest';
import { parseJavaRelease } from './java.js';

describe('parseJavaRelease', () => {
  it.each([
    ['openjdk version "17.0.15" 2025-04-15', 17],
    ['openjdk version "25.0.3" 2026-04-21 LTS', 25],
    ['java version "1.8.0_402"', 8],
    ['openjdk version "21" 2023-09-19', 21],
  ])('reads the feature release from %j', (output, release) => {
    expect(parseJavaRelease(output)).toBe(release);
  });

  it('says nothing for output that is not a Java version', () => {
    expect(parseJavaRelease('bash: java: command not found')).toBeUndefined();
  });
});
