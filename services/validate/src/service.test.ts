import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTEGRITY_HEADER } from '@toolgate/shared';
import { USERS } from '../../../examples/billing/data.js';
import { openaiChat } from '../../../examples/billing/fixtures/proposals.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
} from '../../../test/support/gate-harness.js';
import * as validate from './service.js';

describe('the validate stage on Kafka', () => {
  let h: GateHarness;
  beforeAll(async () => {
    h = await startGateHarness({ label: 'validate', modules: [validate] });
  });
  afterAll(() => h?.close());

  it('forwards a valid proposal as a tagged envelope and refuses a bad one with an observation', async () => {
    const alice = await h.session(USERS.alice);
    await h.send(
      'proposals',
      'run-1',
      openaiChat({ proposalId: 'p-ok', runId: 'run-1' }, 'search', { query: 'x' }),
      sessionHeaders(alice),
    );
    await h.send(
      'proposals',
      'run-1',
      openaiChat({ proposalId: 'p-bad', runId: 'run-1' }, 'search', '{"query":'),
      sessionHeaders(alice),
    );
    await h.send(
      'proposals',
      'run-2',
      openaiChat({ proposalId: 'p-anon', runId: 'run-2' }, 'search', { query: 'x' }),
    );
    await h.send('proposals', null, Buffer.from([0xff, 0x00, 0x13]));

    const [envelope] = await h.waitFor(
      'validated',
      'the envelope of p-ok',
      (r) => r.value['proposalId'] === 'p-ok',
    );
    expect(envelope!.value).toMatchObject({
      tool: 'search',
      args: { query: 'x' },
      context: { tenant: 'acme', subject: 'alice' },
    });
    expect(envelope!.headers[INTEGRITY_HEADER]).toMatch(/^[0-9a-f]{64}$/);

    const [truncated] = await h.waitFor(
      'observations',
      'p-bad refused',
      (r) => r.value['proposalId'] === 'p-bad',
    );
    expect(truncated!.value).toMatchObject({
      outcome: 'rejected',
      stage: 'representation',
      code: 'truncated',
      disposition: 'retry',
    });
    const [anon] = await h.waitFor(
      'observations',
      'p-anon refused',
      (r) => r.value['proposalId'] === 'p-anon',
    );
    expect(anon!.value).toMatchObject({
      outcome: 'rejected',
      stage: 'authentication',
      code: 'missing_session',
    });
    await h.waitFor('quarantine', 'the undecodable bytes', () => true);
    const [quarantined] = await h.waitFor(
      'audit',
      'the quarantine audit',
      (r) => r.value['kind'] === 'quarantined',
    );
    expect(quarantined!.value).toMatchObject({ raw: { bytes: 3 } });
    expect(h.seen('validated').map((r) => r.value['proposalId'])).toEqual(['p-ok']);
  });
});
