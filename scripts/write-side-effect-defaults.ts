/** Writes docs/side-effect-classes.md from the side-effect defaults (`npm run docs:side-effects`). */
import { writeFileSync } from 'node:fs';
import { renderSideEffectDefaults } from '../packages/shared/src/tools/side-effect-defaults-doc.js';

writeFileSync(
  new URL('../docs/side-effect-classes.md', import.meta.url),
  renderSideEffectDefaults(),
);
process.stdout.write('wrote docs/side-effect-classes.md\n');
