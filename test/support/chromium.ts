/**
 * The headless Chromium the browser tests drive through playwright-core: Debian's `chromium`
 * package. When it is missing it is installed (`apt-get update`, then `apt-get install -y
 * chromium`) if the tests run as root, once, by the integration project's global setup; otherwise
 * they fail with a message saying how to install it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian's package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** The browser's path, installing it first when it is missing and the tests run as root. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `The browser tests need Chromium at ${CHROMIUM_PATH}: install it with \`sudo apt-get install -y chromium\`.`,
    );
  }
  // A fresh machine may have no package lists yet.
  const apt = (...args: string[]) =>
    execFileSync('apt-get', args, {
      stdio: 'inherit',
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  apt('update');
  apt('install', '-y', 'chromium');
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`apt-get installed chromium, but ${CHROMIUM_PATH} is still missing.`);
  }
  return CHROMIUM_PATH;
}

/** Launches headless Chromium (no sandbox: the tests run in a container). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: ensureChromium(), args: ['--no-sandbox'] });
}
