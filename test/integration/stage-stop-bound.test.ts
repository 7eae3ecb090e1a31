/**
 * TOOLGATE_SHUTDOWN_TIMEOUT_MS bounds the stage loops' stops, not only the process: a stage whose
 * consumer never leaves its group gives up at its share of the deadline (STOP_SHARE) with a
 * warning, the other stage and the connections still close, and the process exits 0: the hard
 * deadline, which would exit 1, never passes. Against
 * the real stack (Kafka, the registry, Redis).
 */
import { afterAll, describe, expect, it } from 'vitest';
import * as authorize from '@toolgate/authorize';
import * as validate from '@toolgate/validate';
import {
  superviseStages,
  type Bus,
  type StageModule,
  type SupervisedStages,
} from '@toolgate/platform';
import deployment from '../support/deployment/index.js';
import { eventually, signal } from '../support/deadline.js';
import { dropGateNamespace, gateEnv, stageIdentities } from '../support/gate-harness.js';
import { provisionNamespace, testNamespace } from '../support/namespace.js';
import { kafkaClient } from '../support/stack.js';

const DEADLINE_MS = 4000;
const ns = testNamespace('stop-bound');
/** Holds the validate consumer's disconnect until the test lets it go. */
const held = signal();
const leaveForReal: (() => Promise<void>)[] = [];

/** A bus whose consumers' disconnect waits for `held` (as kafkajs can hang leaving a group). */
function hangingDisconnect(bus: Bus): Bus {
  return {
    ...bus,
    consumer(options) {
      const consumer = bus.consumer(options);
      leaveForReal.push(() => consumer.disconnect());
      return { ...consumer, disconnect: () => held.promise };
    },
  };
}

const hanging: StageModule = {
  ...validate,
  start: (deps) => validate.start({ ...deps, bus: hangingDisconnect(deps.bus) }),
};

let gate: SupervisedStages | undefined;

afterAll(async () => {
  held.resolve();
  await Promise.all(leaveForReal.map((leave) => leave()));
  gate?.lifecycle.dispose();
  await dropGateNamespace(ns, kafkaClient(`${ns.id}-cleanup`));
}, 60_000);

describe('TOOLGATE_SHUTDOWN_TIMEOUT_MS', () => {
  it('ends a stage stop that hangs at its share of the deadline, and the process exits 0', async () => {
    const lines: string[] = [];
    const exits: number[] = [];
    await provisionNamespace(ns);
    gate = await superviseStages({
      identities: stageIdentities(),
      env: gateEnv(ns, {
        TOOLGATE_SHUTDOWN_TIMEOUT_MS: String(DEADLINE_MS),
        TOOLGATE_LOG_LEVEL: 'info',
      }),
      deployment,
      modules: [hanging, authorize],
      logDestination: { write: (line: string) => void lines.push(line) },
      exit: (code) => void exits.push(code),
      process: { on: () => undefined, off: () => undefined },
    });
    const running = gate;
    await eventually(
      60_000,
      'both stages to join their groups',
      () => Promise.resolve(running.ready()),
      20,
    );

    // The validate consumer's disconnect is still held: the stop ends only because the loop gave
    // up on it. Had the hard deadline passed, the lifecycle would have exited 1 first.
    await running.lifecycle.stop('test finished');

    expect(exits).toEqual([0]);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(
      expect.objectContaining({ stage: 'validate', msg: 'stop: could not leave the group' }),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ stage: 'authorize', msg: 'stage loop stopped' }),
    );
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'stopped', code: 0 }));
  }, 120_000);
});
