import { describe, expect, it } from 'vitest';
import {
  NOT_STOPPED,
  walkAroundTable,
  walkAroundVerdict,
  type AttemptLine,
} from './walk-around-table.js';

const stopped: AttemptLine = {
  no: '1',
  attempt: 'produce a command to toolgate.commands.refund_payment',
  as: 'agent-acme',
  stopped: true,
  detail: 'broker: TOPIC_AUTHORIZATION_FAILED',
};

const through: AttemptLine = {
  no: '3a',
  attempt: 'write toolgate.cleared',
  as: 'worker-billing',
  stopped: false,
  detail: 'the broker took the record',
};

describe('walkAroundTable', () => {
  it('prints one aligned row per attempt under a header and a rule', () => {
    const [header, rule, first, second] = walkAroundTable([stopped, through]).split('\n');
    expect(header).toMatch(/^#\s+attempt\s+as\s+stopped by$/);
    expect(rule).toMatch(/^-+ {2}-+ {2}-+ {2}-+$/);
    expect(first).toMatch(
      /^1\s+produce a command to toolgate\.commands\.refund_payment {2}agent-acme\s+broker: TOPIC_AUTHORIZATION_FAILED$/,
    );
    expect(second?.indexOf('worker-billing')).toBe(first?.indexOf('agent-acme'));
  });

  it('marks an attempt that was not stopped, with what was seen instead', () => {
    expect(walkAroundTable([through])).toContain(`${NOT_STOPPED}: the broker took the record`);
  });
});

describe('walkAroundVerdict', () => {
  it('says all were stopped only when every one was', () => {
    expect(walkAroundVerdict([stopped, stopped])).toBe('all 2 walk-around attempts were stopped');
    expect(walkAroundVerdict([stopped, through])).toBe(
      `1 of 2 walk-around attempts were ${NOT_STOPPED}`,
    );
  });
});
