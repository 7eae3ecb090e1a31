/**
 * The validate stage in its own process, for the crash test: started with `superviseStages` on
 * the test deployment and the `TOOLGATE_*` environment it is given, prints `ready` once its
 * consumer joined its group. Its group session is 6 s, so a killed member leaves the group soon.
 */
import { superviseStages, type Bus, type StageModule } from '@toolgate/platform';
import deployment from './deployment/index.js';
import * as validate from '../../services/validate/src/service.js';

function testBus(bus: Bus): Bus {
  return {
    ...bus,
    consumer: (options) => bus.consumer({ ...options, sessionTimeoutMs: 6_000 }),
  };
}

const module: StageModule = {
  STAGE: validate.STAGE,
  start: (deps) => validate.start({ ...deps, bus: testBus(deps.bus) }),
};

const supervised = await superviseStages({ env: process.env, deployment, modules: [module] });

const announce = setInterval(() => {
  if (!supervised.ready()) return;
  clearInterval(announce);
  process.stdout.write('ready\n');
}, 20);
