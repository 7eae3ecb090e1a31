/**
 * The console's development sign-ins for the demo: one session per example user (alice approves
 * for acme, bob views acme, carol approves for globex), written to a file only this user may read
 * and handed to the console as TOOLGATE_CONSOLE_DEV_SIGN_INS, so that the page offers each as a
 * one-click sign-in marked as a development one. A real deployment signs people in with the
 * sessions its identity provider issues and sets no such file.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { USERS } from '../data.js';
import { mintDemoSession } from './demo-clients.js';
import type { DemoSettings } from './demo-settings.js';

/** Writes the sign-ins of this run beside its logs; resolves with the file's path. */
export async function writeConsoleSignIns(settings: DemoSettings): Promise<string> {
  const signIns = await Promise.all(
    Object.values(USERS).map(async (user) => ({
      label: `${user.subject} (${user.tenant}, ${user.roles.join(', ')})`,
      token: await mintDemoSession(settings.sessionSecret, user),
    })),
  );
  mkdirSync(settings.logDir, { recursive: true });
  const file = path.join(settings.logDir, 'console-sign-ins.json');
  writeFileSync(file, `${JSON.stringify(signIns, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync keeps the mode of a file that was already there.
  chmodSync(file, 0o600);
  return file;
}
