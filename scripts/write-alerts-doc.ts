/** Writes docs/alerts.md from the alert rules and their defaults (`npm run docs:alerts`). */
import { writeFileSync } from 'node:fs';
import { renderAlertRules } from '../packages/shared/src/analytics/alerts/alerts-doc.js';

writeFileSync(new URL('../docs/alerts.md', import.meta.url), renderAlertRules());
process.stdout.write('wrote docs/alerts.md\n');
