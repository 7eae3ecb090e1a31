/** The authorize stage as its own process: `TOOLGATE_CONFIG=<file> toolgate-authorize`. */
import { runStagesMain } from '@toolgate/platform';
import * as authorize from './service.js';

await runStagesMain(process.env, [authorize]);
