/** Writes docs/configuration.md from the variable table (`npx tsx scripts/write-configuration-doc.ts`). */
import { writeFileSync } from 'node:fs';
import { renderConfigurationDoc } from '../packages/platform/src/config.js';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigurationDoc());
process.stdout.write('wrote docs/configuration.md\n');
