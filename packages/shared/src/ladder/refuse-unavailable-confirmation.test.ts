import { describe, expect, it } from 'vitest';
import { refuseUnavailableConfirmation } from './refuse-unavailable-confirmation.js';

describe('refuseUnavailableConfirmation', () => {
  it('calls a confirmation that is not there unknown, without saying whose it might be', () => {
    const r = refuseUnavailableConfirmation('conf_1', 'globex', undefined);
    expect(r.rejected).toMatchObject({ stage: 'confirmation', code: 'unknown_confirmation' });
    expect(r.rejected.publicMessage).not.toContain('globex');
  });

  it('calls one that no longer waits already decided', () => {
    for (const state of ['taken', 'swept', 'finished']) {
      const r = refuseUnavailableConfirmation('conf_1', 'acme', state);
      expect(r.rejected).toMatchObject({ code: 'already_decided', disposition: 'deny' });
      expect(r.rejected.internalDetail).toContain(state);
    }
  });
});
