/**
 * Development sign-ins: a JSON file `[{label, token}]` (TOOLGATE_CONSOLE_DEV_SIGN_INS) whose
 * entries the sign-in page offers as one-click buttons. The tokens stay on the server; the page
 * sees labels and positions only.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '@toolgate/shared';

/** One development sign-in. */
export interface DevSignIn {
  readonly label: string;
  readonly token: string;
}

/** Most entries a development sign-ins file may hold. */
export const MAX_DEV_SIGN_INS = 20;

/** Reads the file at `file`; throws a ConfigError naming what is wrong with it. */
export function readDevSignIns(file: string): readonly DevSignIn[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      'development sign-ins',
      [`TOOLGATE_CONSOLE_DEV_SIGN_INS: cannot read ${file}`],
      {
        cause: error,
      },
    );
  }
  return parseDevSignIns(text, file);
}

/** The entries of a development sign-ins file's text; throws a ConfigError when it is not one. */
export function parseDevSignIns(text: string, file: string): readonly DevSignIn[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const valid =
    Array.isArray(value) &&
    value.length <= MAX_DEV_SIGN_INS &&
    value.every(
      (e: { label?: unknown; token?: unknown } | null) =>
        typeof e?.label === 'string' &&
        e.label.length > 0 &&
        e.label.length <= 80 &&
        typeof e.token === 'string' &&
        e.token.length > 0,
    );
  if (!valid) {
    throw new ConfigError('development sign-ins', [
      `TOOLGATE_CONSOLE_DEV_SIGN_INS: ${file} must hold a JSON array of at most ${MAX_DEV_SIGN_INS} {label, token} (non-empty strings)`,
    ]);
  }
  return (value as DevSignIn[]).map(({ label, token }) => ({ label, token }));
}
