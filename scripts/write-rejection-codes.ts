/** Writes docs/rejection-codes.md from the catalogue (`npm run docs:codes`). */
import { writeFileSync } from 'node:fs';
import { renderRejectionCodes } from '../packages/shared/src/catalogue-doc.js';

writeFileSync(new URL('../docs/rejection-codes.md', import.meta.url), renderRejectionCodes());
process.stdout.write('wrote docs/rejection-codes.md\n');
