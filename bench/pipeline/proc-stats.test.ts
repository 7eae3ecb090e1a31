import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findServiceProcesses,
  parseProcIoWrites,
  parseProcStat,
  sampleProcess,
} from './proc-stats.js';

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

describe('parseProcIoWrites', () => {
  it('reads the write system calls, and nothing from text without them', () => {
    const text = 'rchar: 6976\nwchar: 12\nsyscr: 10\nsyscw: 3\nread_bytes: 0\n';
    expect(parseProcIoWrites(text)).toBe(3);
    expect(parseProcIoWrites('rchar: 6976\nsyscr: 10\n')).toBeUndefined();
  });
});

describe('sampleProcess', () => {
  it('reads this very process, and nothing for a pid that does not exist', () => {
    const self = sampleProcess(process.pid);
    expect(self?.rssMiB).toBeGreaterThan(1);
    expect(self?.cpuSeconds).toBeGreaterThanOrEqual(0);
    // A file written synchronously is at least one write system call, counted by the next sample.
    const before = self?.writeCalls ?? Number.NaN;
    const dir = mkdtempSync(join(tmpdir(), 'bench-io-'));
    try {
      writeFileSync(join(dir, 'x'), 'x');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(sampleProcess(process.pid)?.writeCalls).toBeGreaterThan(before);
    expect(sampleProcess(2 ** 30)).toBeUndefined();
  });
});

describe('findServiceProcesses', () => {
  it('takes a live pid from the first stack dir that has one, and names what it cannot find', () => {
    const dead = mkdtempSync(join(tmpdir(), 'bench-stack-'));
    const live = mkdtempSync(join(tmpdir(), 'bench-stack-'));
    try {
      for (const dir of [dead, live]) mkdirSync(join(dir, 'run'));
      writeFileSync(join(dead, 'run', 'kafka.pid'), JSON.stringify({ pid: 2 ** 30 }));
      writeFileSync(join(live, 'run', 'kafka.pid'), JSON.stringify({ pid: process.pid }));
      // No Redis listens on port 1, and no pid file names one.
      const { found, missing } = findServiceProcesses([dead, live], 1);
      expect(found).toContainEqual({ name: 'broker', pid: process.pid });
      expect(found.map((s) => s.name)).not.toContain('redis');
      expect(missing).toContain('redis');
    } finally {
      rmSync(dead, { recursive: true, force: true });
      rmSync(live, { recursive: true, force: true });
    }
  });
});
