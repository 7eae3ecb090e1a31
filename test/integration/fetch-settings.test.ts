/**
 * TOOLGATE_FETCH_* reach the consumer of every stage and of a tool worker, and a call goes
 * through the whole gate with them: a deployment trades latency for CPU by environment alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as authorize from '@toolgate/authorize';
import * as confirm from '@toolgate/confirm';
import * as execute from '@toolgate/execute';
import * as validate from '@toolgate/validate';
import { startToolWorker, type ToolWorker } from '@toolgate/tool-worker';
import {
  createBus,
  createLedger,
  EXAMPLE_WORKER,
  SILENT_LOGGER,
  type Bus,
  type BusConsumerOptions,
  type StageModule,
} from '@toolgate/platform';
import { USERS } from '../../examples/billing/data.js';
import { openaiChat } from '../../examples/billing/fixtures/proposals.js';
import { createBillingHandlers } from '../../examples/billing/tool-handlers.js';
import { identity, stackAddresses } from '../support/stack.js';
import { workerEnv } from '../support/tool-worker-harness.js';
import { sessionHeaders, startGateHarness, type GateHarness } from '../support/gate-harness.js';

/** Not the defaults (25 ms, 32 KiB, 2 KiB), so a process that ignored them would show. */
const FETCH_ENV = {
  TOOLGATE_FETCH_MAX_WAIT_MS: '7',
  TOOLGATE_FETCH_MIN_BYTES: '4096',
  TOOLGATE_FETCH_BUSY_MIN_BYTES: '512',
};
const EXPECTED = { maxWaitTimeMs: 7, minBytes: 4096, busyMinBytes: 512 };

let workerBus: Bus | undefined;

/** The options of every consumer created, by who created it. */
const consumers = new Map<string, BusConsumerOptions[]>();

function recording(bus: Bus, who: string): Bus {
  return {
    ...bus,
    consumer(options) {
      consumers.set(who, [...(consumers.get(who) ?? []), options]);
      return bus.consumer(options);
    },
  };
}

const recorded = (module: StageModule): StageModule => ({
  ...module,
  start: (deps) => module.start({ ...deps, bus: recording(deps.bus, module.STAGE) }),
});

let h: GateHarness;
let worker: ToolWorker;

beforeAll(async () => {
  h = await startGateHarness({
    label: 'fetch-settings',
    modules: [validate, authorize, confirm, execute].map(recorded),
    env: FETCH_ENV,
  });
  const { runtime } = h.gate;
  // The worker's own Kafka identity: the gate's may not read command topics.
  workerBus = createBus({
    brokers: [...stackAddresses().kafkaBrokers],
    clientId: `${h.ns.id}-worker`,
    logger: SILENT_LOGGER,
    security: identity(EXAMPLE_WORKER.principal),
  });
  worker = await startToolWorker({
    env: workerEnv(h.ns, FETCH_ENV),
    name: EXAMPLE_WORKER.name,
    tools: createBillingHandlers(runtime.objects),
    logger: SILENT_LOGGER,
    connections: {
      bus: recording(workerBus, 'worker'),
      codec: runtime.codec,
      ledger: createLedger(runtime.redis),
    },
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await workerBus?.close();
  await h?.close();
});

describe('TOOLGATE_FETCH_*', () => {
  it('sets the fetch of every stage and of the tool worker', () => {
    for (const who of ['validate', 'authorize', 'confirm', 'execute', 'worker']) {
      const options = consumers.get(who);
      expect(options, who).toHaveLength(1);
      expect(options?.[0], who).toMatchObject(EXPECTED);
    }
  });

  it('carries a call through the gate to its result', async () => {
    const token = await h.session(USERS.alice);
    const proposal = openaiChat({ proposalId: 'f-search', runId: 'run-fetch' }, 'search', {
      query: 'open invoices',
      max_results: 2,
    });
    await h.send('proposals', proposal.runId, proposal, sessionHeaders(token));
    const [end] = await h.waitFor(
      'observations',
      'the result of f-search',
      (r) => r.value['proposalId'] === 'f-search' && r.value['outcome'] === 'result',
    );
    expect(end?.value['outcome']).toBe('result');
    expect(h.seen('commands.search')).toHaveLength(1);
  });
});
