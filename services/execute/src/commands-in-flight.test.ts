import { describe, expect, it } from 'vitest';
import { pendingCommand } from '../../../test/support/pending-command.js';
import { CommandsInFlight } from './commands-in-flight.js';

const pending = (commandId: string) => pendingCommand(commandId, 0);

describe('CommandsInFlight', () => {
  it('gives a remembered command to the first take only', () => {
    const inFlight = new CommandsInFlight();
    inFlight.remember(pending('c1'));
    expect(inFlight.take('c1')).toEqual(pending('c1'));
    expect(inFlight.take('c1')).toBeUndefined();
    expect(inFlight.take('never')).toBeUndefined();
  });

  it('drops a forgotten command', () => {
    const inFlight = new CommandsInFlight();
    inFlight.remember(pending('c1'));
    inFlight.forget('c1');
    expect(inFlight.take('c1')).toBeUndefined();
    expect(inFlight.size).toBe(0);
  });

  it('keeps at most its bound, dropping the oldest first', () => {
    const inFlight = new CommandsInFlight(2);
    for (const id of ['c1', 'c2', 'c3']) inFlight.remember(pending(id));
    expect(inFlight.size).toBe(2);
    expect(inFlight.take('c1')).toBeUndefined();
    // Remembering one again makes it the newest.
    inFlight.remember(pending('c2'));
    inFlight.remember(pending('c4'));
    expect(inFlight.take('c3')).toBeUndefined();
    expect(inFlight.take('c2')).toEqual(pending('c2'));
    expect(inFlight.take('c4')).toEqual(pending('c4'));
  });
});
