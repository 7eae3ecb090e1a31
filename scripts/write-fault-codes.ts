/** Writes docs/fault-codes.md from the fault catalogue (`npm run docs:faults`). */
import { writeFileSync } from 'node:fs';
import { renderFaultCodes } from '../packages/platform/src/fault-codes-doc.js';

writeFileSync(new URL('../docs/fault-codes.md', import.meta.url), renderFaultCodes());
process.stdout.write('wrote docs/fault-codes.md\n');
