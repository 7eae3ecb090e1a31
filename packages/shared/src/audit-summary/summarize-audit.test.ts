import { describe, expect, it } from 'vitest';
import { formatAuditTable, summarizeAudit, type SummarizedEvent } from './summarize-audit.js';

const event = (
  eventId: string,
  rung: string,
  code: string | null,
  tool = 'search',
): SummarizedEvent =>
  ({
    eventId,
    kind: 'rejected',
    stage: rung,
    code,
    disposition: 'deny',
    outcome: 'rejected',
    tool,
    tenant: 'acme',
  }) as SummarizedEvent;

describe('summarizeAudit', () => {
  it('counts by the chosen dimensions, most frequent first, each event once', () => {
    const events = [
      event('e1', 'schema', 'unknown_tool'),
      event('e2', 'schema', 'unknown_tool'),
      event('e2', 'schema', 'unknown_tool'),
      event('e3', 'authorization', 'not_authorized', 'approve_invoice'),
      event('e4', 'result', null),
    ];
    expect(summarizeAudit(events, ['stage', 'code'])).toEqual([
      { values: { stage: 'schema', code: 'unknown_tool' }, count: 2 },
      { values: { stage: 'authorization', code: 'not_authorized' }, count: 1 },
      { values: { stage: 'result', code: '-' }, count: 1 },
    ]);
    expect(summarizeAudit(events, ['tool'])).toEqual([
      { values: { tool: 'search' }, count: 3 },
      { values: { tool: 'approve_invoice' }, count: 1 },
    ]);
  });

  it('formats a table with a total', () => {
    const rows = summarizeAudit(
      [event('e1', 'schema', 'unknown_tool'), event('e2', 'limits', 'rate_limited')],
      ['stage', 'code'],
    );
    const table = formatAuditTable(rows, ['stage', 'code']);
    expect(table.split('\n')).toEqual([
      'stage   code          count',
      '------  ------------  -----',
      'limits  rate_limited      1',
      'schema  unknown_tool      1',
      '------  ------------  -----',
      'total                     2',
    ]);
  });
});
