/**
 * Writes the latest chaos run into docs/reliability.md (`npm run docs:reliability`): the block
 * between its `chaos-latest` markers becomes the markdown of bench/results/chaos-latest.json
 * (`npm run chaos` writes it); the rest of the page is left as it is.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ChaosReport } from '../bench/chaos/chaos-facts.js';
import {
  CHAOS_REPORT_PATH,
  chaosMarkdown,
  replaceChaosBlock,
} from '../bench/chaos/format-chaos.js';

const root = new URL('../', import.meta.url);
const doc = new URL('docs/reliability.md', root);
const report = JSON.parse(readFileSync(new URL(CHAOS_REPORT_PATH, root), 'utf8')) as ChaosReport;
writeFileSync(doc, replaceChaosBlock(readFileSync(doc, 'utf8'), chaosMarkdown(report)));
process.stdout.write(`wrote the chaos run of ${report.at} into docs/reliability.md\n`);
