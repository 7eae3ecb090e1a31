import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUARANTINE_VALUE_BYTES, QUARANTINE_VALUE_BYTES_HEADER } from '@toolgate/platform';
import { INTEGRITY_HEADER, MAX_ANSWERED_ID_CHARS, MAX_PROPOSAL_ID_CHARS } from '@toolgate/shared';
import { USERS } from '../../../test/support/deployment/index.js';
import { anthropic, mcp, openaiChat } from '../../../test/support/proposals.js';
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
      openaiChat({ proposalId: 'p-ok', runId: 'run-1' }, 'lookup', { query: 'x' }),
      sessionHeaders(alice),
    );
    await h.send(
      'proposals',
      'run-1',
      openaiChat({ proposalId: 'p-bad', runId: 'run-1' }, 'lookup', '{"query":'),
      sessionHeaders(alice),
    );
    await h.send(
      'proposals',
      'run-2',
      openaiChat({ proposalId: 'p-anon', runId: 'run-2' }, 'lookup', { query: 'x' }),
      sessionHeaders(undefined, 'globex'),
    );
    await h.send(
      'proposals',
      'run-2',
      openaiChat({ proposalId: 'p-nowhere', runId: 'run-2' }, 'lookup', { query: 'x' }),
    );
    await h.send('proposals', null, Buffer.from([0xff, 0x00, 0x13]));

    const [envelope] = await h.waitFor(
      'validated',
      'the envelope of p-ok',
      (r) => r.value['proposalId'] === 'p-ok',
    );
    expect(envelope!.value).toMatchObject({
      tool: 'lookup',
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
    // No session to place it: the refusal goes to the tenant the proposal asked for, alone.
    expect(anon!.topic).toBe(h.topic('observations.globex'));
    expect(Object.keys(anon!.value).sort()).toEqual([
      'at',
      'code',
      'disposition',
      'message',
      'outcome',
      'proposalId',
      'requestId',
      'runId',
      'stage',
    ]);
    // Asking for no tenant, it is audited and answered nowhere: its audit event and any
    // observation commit in one transaction, so the first being read means the second is not.
    await h.waitFor(
      'audit',
      'the refusal of p-nowhere',
      (r) => r.value['proposalId'] === 'p-nowhere',
    );
    expect(h.seen('observations').filter((r) => r.value['proposalId'] === 'p-nowhere')).toEqual([]);
    await h.waitFor('quarantine', 'the undecodable bytes', () => true);
    const [quarantined] = await h.waitFor(
      'audit',
      'the quarantine audit',
      (r) => r.value['kind'] === 'quarantined',
    );
    expect(quarantined!.value).toMatchObject({ raw: { bytes: 3 } });
    expect(h.seen('validated').map((r) => r.value['proposalId'])).toEqual(['p-ok']);
  });

  it('names in its audit event the schema a proposal was written under, and none for plain JSON', async () => {
    const alice = await h.session(USERS.alice);
    const truncated = (proposalId: string) =>
      openaiChat({ proposalId, runId: 'run-schema' }, 'lookup', '{"query":');
    const subject = `${h.topic('proposals')}-value`;
    const wire = await h.gate.runtime.codec.encode(subject, truncated('p-wire'));
    await h.send('proposals', 'run-schema', wire, sessionHeaders(alice));
    await h.send('proposals', 'run-schema', truncated('p-plain'), sessionHeaders(alice));
    const events = await h.waitFor(
      'audit',
      'the refusals of p-wire and p-plain',
      (r) => ['p-wire', 'p-plain'].includes(String(r.value['proposalId'])),
      2,
    );
    const of = (id: string) => events.find((r) => r.value['proposalId'] === id)!.value;
    expect(of('p-wire')).toMatchObject({ code: 'truncated', schemaId: wire.readInt32BE(1) });
    expect(of('p-plain')).toMatchObject({ code: 'truncated' });
    expect(of('p-plain')).not.toHaveProperty('schemaId');
  });

  it('answers a plain-JSON proposal the bounded parser refuses as a whole, and still quarantines it', async () => {
    const alice = await h.session(USERS.alice);
    // JSON.stringify cannot write what these records hold, so each is written from a placeholder.
    const record = (proposal: object, from: string, to: string) =>
      Buffer.from(JSON.stringify(proposal).replace(from, to));
    const dup = mcp({ proposalId: 'p-dup', runId: 'run-3' }, 'lookup', { query: 'a', QQQQQ: 'b' });
    const sent = {
      'p-dup': record(dup, '"QQQQQ"', '"query"'),
      'p-dup-anon': record({ ...dup, proposalId: 'p-dup-anon' }, '"QQQQQ"', '"query"'),
      'p-big': record(
        anthropic({ proposalId: 'p-big', runId: 'run-3' }, 'lookup', {
          query: 'x',
          limit: 7,
        }),
        '"limit":7',
        '"limit":9007199254740993.0',
      ),
      'p-proto': record(
        anthropic({ proposalId: 'p-proto', runId: 'run-3' }, 'lookup', {
          query: 'x',
          QQQQQQQQQ: 1,
        }),
        '"QQQQQQQQQ"',
        '"__proto__"',
      ),
      'p-lone': record(
        // A run of its own: records whose tool cannot be read share one repair chain per run,
        // and p-dup and p-big spend run-3's two repairs.
        mcp({ proposalId: 'p-lone', runId: 'run-3b' }, 'lookup', { query: 'QQQQQ' }),
        'QQQQQ',
        '\\ud800',
      ),
    };
    for (const [id, bytes] of Object.entries(sent)) {
      await h.send(
        'proposals',
        'run-3',
        bytes,
        sessionHeaders(id === 'p-dup-anon' ? undefined : alice),
      );
    }

    const answers = await h.waitFor(
      'observations',
      'the answers to the refused records',
      (r) => String(r.value['runId']).startsWith('run-3'),
      5,
    );
    const answerOf = (id: string) => answers.find((r) => r.value['proposalId'] === id)?.value;
    expect(answerOf('p-dup')).toMatchObject({
      outcome: 'rejected',
      stage: 'representation',
      code: 'duplicate_key',
      disposition: 'repair',
      message: expect.stringContaining('"query"') as unknown,
      repair: { attempt: 1, remaining: 1 },
    });
    expect(answerOf('p-dup-anon')).toMatchObject({
      stage: 'authentication',
      code: 'missing_session',
    });
    expect(answerOf('p-big')).toMatchObject({
      code: 'unrepresentable_number',
      disposition: 'repair',
    });
    expect(answerOf('p-proto')).toMatchObject({ code: 'forbidden_key', disposition: 'deny' });
    expect(answerOf('p-proto')?.['repair']).toBeUndefined();
    expect(answerOf('p-lone')).toMatchObject({ code: 'invalid_json', disposition: 'repair' });
    expect(answerOf('p-big')).toMatchObject({ repair: { attempt: 2, remaining: 0 } });
    expect(answers.map((r) => r.value['proposalId']).sort()).toEqual(Object.keys(sent).sort());

    const kept = await h.waitFor(
      'quarantine',
      'the refused records kept',
      (r) => Object.values(sent).some((bytes) => r.raw?.equals(bytes) === true),
      5,
    );
    expect(kept).toHaveLength(5);
    await h.waitFor(
      'audit',
      'an audited refusal of p-dup under alice',
      (r) =>
        r.value['kind'] === 'rejected' &&
        r.value['proposalId'] === 'p-dup' &&
        r.value['tenant'] === 'acme',
    );
    expect(h.seen('validated').filter((r) => String(r.value['runId']).startsWith('run-3'))).toEqual(
      [],
    );
  });

  it('refuses a proposal whose id is too long, and only quarantines one whose id is too long to answer under', async () => {
    const alice = await h.session(USERS.alice);
    const longRun = `run-4-${'r'.repeat(MAX_PROPOSAL_ID_CHARS)}`;
    // Half a megabyte: an answer would carry it as the observation's key and in its value.
    const hugeRun = `run-5-${'r'.repeat(500_000)}`;
    const tooLong = openaiChat({ proposalId: 'p-long', runId: longRun }, 'lookup', { query: 'x' });
    const huge = openaiChat({ proposalId: 'p-huge', runId: hugeRun }, 'lookup', { query: 'x' });
    const hugeBytes = Buffer.from(JSON.stringify(huge));
    await h.send('proposals', 'run-4', tooLong, sessionHeaders(alice));
    await h.send('proposals', 'run-5', hugeBytes, sessionHeaders(alice));

    const [refused] = await h.waitFor(
      'observations',
      'p-long refused',
      (r) => r.value['proposalId'] === 'p-long',
    );
    expect(refused!.value).toMatchObject({
      runId: longRun,
      outcome: 'rejected',
      stage: 'representation',
      code: 'invalid_proposal',
      message: expect.stringContaining(
        `runId must be at most ${MAX_PROPOSAL_ID_CHARS} characters`,
      ) as unknown,
    });
    await h.waitFor(
      'quarantine',
      'the record with the huge runId',
      (r) => r.raw?.equals(hugeBytes) === true,
    );
    const [audited] = await h.waitFor(
      'audit',
      'the quarantine audit of the huge runId',
      (r) =>
        r.value['kind'] === 'quarantined' &&
        r.value['raw'] !== undefined &&
        (r.value['raw'] as { bytes: number }).bytes === hugeBytes.length,
    );
    expect(audited!.value['internalDetail']).toContain(
      `longer than the ${MAX_ANSWERED_ID_CHARS} characters an answer may repeat: runId`,
    );
    // Sent after both, on the same partition: once it is answered, nothing else is on its way.
    await h.send(
      'proposals',
      'run-5',
      openaiChat({ proposalId: 'p-after', runId: 'run-5' }, 'lookup', '{"query":'),
      sessionHeaders(alice),
    );
    await h.waitFor('observations', 'p-after answered', (r) => r.value['proposalId'] === 'p-after');
    expect(h.seen('observations').filter((r) => r.value['proposalId'] === 'p-huge')).toEqual([]);
    expect(h.seen('validated').filter((r) => /^run-[45]/.test(String(r.value['runId'])))).toEqual(
      [],
    );
  });

  it('quarantines a record larger than one request may carry as its first bytes, and audits the whole', async () => {
    // Not UTF-8, and as large as the broker takes: more than one produce request of the gate.
    const raw = Buffer.alloc(1_040_000, 0xff);
    raw.writeUInt32BE(0x7261775f, 0); // "raw_", to find it by
    await h.send('proposals', 'run-6', raw, { traceparent: 'big' });
    const [kept] = await h.waitFor(
      'quarantine',
      'the large record, kept',
      (r) => r.headers['traceparent'] === 'big',
    );
    expect(kept!.headers[QUARANTINE_VALUE_BYTES_HEADER]).toBe('1040000');
    expect(kept!.raw?.equals(raw.subarray(0, MAX_QUARANTINE_VALUE_BYTES))).toBe(true);
    await h.waitFor(
      'audit',
      'the quarantine audit of the whole record',
      (r) =>
        r.value['kind'] === 'quarantined' &&
        (r.value['raw'] as { bytes?: number } | undefined)?.bytes === raw.length,
    );
  });
});
