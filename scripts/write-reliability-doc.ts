/**
 * Writes the latest chaos run into docs/reliability.md (`npm run docs:reliability`): the block
 * between its `chaos-latest` markers becomes the markdown of bench/results/chaos-latest.json
 * (`npm run chaos` writes it); the rest of the page is left as it is, and the page is formatted
 * with prettier.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import type { ChaosReport } from '../bench/chaos/chaos-facts.js';
import {
  CHAOS_REPORT_PATH,
  chaosMarkdown,
  replaceChaosBlock,
} from '../bench/chaos/format-chaos.js';

const root = new URL('../', import.meta.url);
const doc = new URL('docs/reliability.md', root);
const report = JSON.parse(readFileSync(new URL(CHAOS_REPORT_PATH, root), 'utf8')) as ChaosReport;
const page = replaceChaosBlock(readFileSync(doc, 'utf8'), chaosMarkdown(report));
// Formatted as the repository formats markdown, so the page passes `prettier --check`.
const filepath = fileURLToPath(doc);
writeFileSync(doc, await format(page, { ...(await resolveConfig(filepath)), filepath }));
process.stdout.write(`wrote the chaos run of ${report.at} into docs/reliability.md\n`);
