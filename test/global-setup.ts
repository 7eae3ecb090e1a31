/**
 * Integration tests run against the real stack. This brings it up unless it already answers
 * (`stackUp` reuses every component that does) and hands its addresses to the test files. The
 * stack is left running afterwards so the next run starts in seconds; `npm run stack:down` stops it.
 * The browser tests' Chromium is installed here too when it is missing, once, before any test
 * file runs.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { loadStackConfig } from '../infra/stack-config.js';
import { stackUp } from '../infra/stack-driver.js';
import { StackError } from '../infra/stack-error.js';
import { ensureChromium } from './support/chromium.js';
import './support/stack.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Vitest global setup of the `integration` and `stack-faults` projects. */
export default async function setup(project: TestProject): Promise<void> {
  try {
    const config = loadStackConfig(process.env, repoRoot);
    await stackUp(config, { line: (text) => console.log(`stack: ${text}`) });
    project.provide('stack', config.addresses);
  } catch (error) {
    throw new Error(explain(error), { cause: error });
  }
  console.log(`browser: ${ensureChromium()}`);
}

function explain(error: unknown): string {
  const what = error instanceof StackError ? error.oneLine(repoRoot) : String(error);
  return [
    `The integration tests need the local stack, and it could not come up: ${what}`,
    'Run `npm run stack:up` to watch it start, `npm run stack:status` to see what answers,',
    'or point TOOLGATE_KAFKA_BROKERS, TOOLGATE_SCHEMA_REGISTRY_URL and TOOLGATE_REDIS_URL at',
    'existing infrastructure (README.md, "Using existing infrastructure").',
  ].join('\n');
}
