/** The confirm stage as its own process: `TOOLGATE_CONFIG=<file> toolgate-confirm`. */
import { runStagesMain } from '@toolgate/platform';
import * as confirm from './service.js';

await runStagesMain(process.env, [confirm]);
