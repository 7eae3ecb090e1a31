/** The validate stage as its own process: `TOOLGATE_CONFIG=<file> toolgate-validate`. */
import { runStagesMain } from '@toolgate/platform';
import * as validate from './service.js';

await runStagesMain(process.env, [validate]);
