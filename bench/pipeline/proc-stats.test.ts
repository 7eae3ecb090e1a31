import { describe, expect, it } from 'vitest';
import { parseProcStat, sampleProcess } from './proc-stats.js';

describe('parseProcStat', () => {
  it('reads utime + stime as seconds and rss pages as MiB, past a command name with spaces', () => {
    // Fields 14 (utime) = 250, 15 (stime) = 50, 24 (rss) = 25600 pages.
    const rest = ['S', ...Array.from({ length: 10 }, (_, i) => String(i + 4)), '250', '50'];
    const more = Array.from({ length: 8 }, (_, i) => String(i + 16));
    const text = `1234 (node (a) b) ${[...rest, ...more, '25600', '0'].join(' ')}`;
    expect(parseProcStat(text)).toEqual({ cpuSeconds: 3, rssMiB: 100 });
  });

  it('is undefined for text that is not a stat line', () => {
    expect(parseProcStat('nothing here')).toBeUndefined();
    expect(parseProcStat('1 (x) S 1 2')).toBeUndefined();
  });
});

describe('sampleProcess', () => {
  it('reads this very process, and nothing for a pid that does not exist', () => {
    const self = sampleProcess(process.pid);
    expect(self?.rssMiB).toBeGreaterThan(1);
    expect(self?.cpuSeconds).toBeGreaterThanOrEqual(0);
    expect(sampleProcess(2 ** 30)).toBeUndefined();
  });
});
