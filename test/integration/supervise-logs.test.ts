/**
 * Stages started in one process log through one logger each: every line names its stage once.
 * Against the real stack (Kafka, the registry, Redis).
 */
import { describe, expect, it } from 'vitest';
import * as authorize from '@toolgate/authorize';
import * as validate from '@toolgate/validate';
import { startGateHarness } from '../support/gate-harness.js';

describe('stages started together', () => {
  it('write `stage` once on every log line, naming the stage that wrote it', async () => {
    const lines: string[] = [];
    const h = await startGateHarness({
      label: 'supervise-logs',
      modules: [validate, authorize],
      env: { TOOLGATE_LOG_LEVEL: 'info' },
      logLines: lines,
      tap: ['observations'],
    });
    await h.close();

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line.match(/"stage":/g), line).toHaveLength(1);
    }
    const said = (msg: string) =>
      lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === msg);
    expect(said('validate started')).toMatchObject({ stage: 'validate' });
    expect(said('authorize started')).toMatchObject({ stage: 'authorize' });
  });
});
