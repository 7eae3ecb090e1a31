/**
 * The execute stage in its own process, for the crash test: started with `superviseStages` on the
 * test deployment and the `TOOLGATE_*` environment it is given, prints `ready` once its consumer
 * joined its group, and stops cleanly on SIGTERM.
 *
 * Read here only, never by production code:
 * - TOOLGATE_TEST_KILL_AFTER_COMMAND=1 makes the process SIGKILL itself when a transaction that
 *   carries a command is about to commit: the command and the input offsets were sent, the commit
 *   never comes, and the broker holds an open transaction of a process that no longer exists.
 * - EXECUTE_CHILD_TIMEOUT_MS sets every tool's timeout, so the deadline sweeper of the restarted
 *   process does not end the command before the redelivered envelope re-issues it.
 * Both processes get a 6 s group session, so the killed member leaves the group soon.
 */
import { superviseStages, type Bus, type BusProducer, type StageModule } from '@toolgate/platform';
import deployment from './deployment/index.js';
import * as execute from '../../services/execute/src/service.js';

const killAfterCommand = process.env['TOOLGATE_TEST_KILL_AFTER_COMMAND'] === '1';
const timeoutMs = Number(process.env['EXECUTE_CHILD_TIMEOUT_MS'] ?? '10000');

/** The same producer, except that committing a transaction that sent a command kills the process. */
function killingAfterCommand(producer: BusProducer): BusProducer {
  return {
    ...producer,
    transaction: async () => {
      const tx = await producer.transaction();
      let sentCommand = false;
      return {
        ...tx,
        send: async (records) => {
          const written = await tx.send(records);
          sentCommand ||= records.some((r) => r.topic.includes('.toolgate.commands.'));
          return written;
        },
        commit: () => {
          if (sentCommand) process.kill(process.pid, 'SIGKILL');
          return tx.commit();
        },
      };
    },
  };
}

function testBus(bus: Bus): Bus {
  return {
    ...bus,
    consumer: (options) => bus.consumer({ ...options, sessionTimeoutMs: 6_000 }),
    producer: (options) =>
      killAfterCommand ? killingAfterCommand(bus.producer(options)) : bus.producer(options),
  };
}

const module: StageModule = {
  STAGE: execute.STAGE,
  start: (deps) => execute.start({ ...deps, bus: testBus(deps.bus) }),
};

const supervised = await superviseStages({
  env: process.env,
  deployment: {
    ...deployment,
    // The ceiling caps every tool's timeout, so it is raised with them.
    ceilings: { ...deployment.ceilings, toolTimeoutMs: timeoutMs },
    tools: deployment.tools.map((t) => ({ ...t, timeoutMs })),
  },
  modules: [module],
});

const announce = setInterval(() => {
  if (!supervised.ready()) return;
  clearInterval(announce);
  process.stdout.write('ready\n');
}, 20);
