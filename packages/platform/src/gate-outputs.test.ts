import { INTEGRITY_HEADER, SESSION_HEADER } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { createGateOutputs } from './gate-outputs.js';
import { gateTopics } from './gate-topics.js';

const outputs = createGateOutputs(gateTopics('ns.'), 'k'.repeat(32));

describe('createGateOutputs: quarantine', () => {
  it("keeps undecodable bytes and their headers, but never the caller's session token", () => {
    const raw = Buffer.from('{"truncated":');
    const quarantined = outputs.quarantine(raw, {
      [SESSION_HEADER]: 'the-callers-session-token',
      [INTEGRITY_HEADER]: 'ab'.repeat(32),
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(quarantined).toEqual({
      topic: 'ns.toolgate.quarantine',
      key: null,
      raw,
      headers: {
        [INTEGRITY_HEADER]: 'ab'.repeat(32),
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
    });
  });

  it('drops the session header whatever its case', () => {
    const quarantined = outputs.quarantine(Buffer.from('x'), {
      'Toolgate-Session': 'token',
      'TOOLGATE-SESSION': 'token',
    });
    expect(quarantined.headers).toEqual({});
  });
});
