/** The execute stage as its own process: `TOOLGATE_CONFIG=<file> toolgate-execute`. */
import { runStagesMain } from '@toolgate/platform';
import * as execute from './service.js';

await runStagesMain(process.env, [execute]);
