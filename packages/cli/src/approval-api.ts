/**
 * A client of the confirm stage's approval API (services/confirm/src/approval-routes.ts):
 * `GET /pending`, `POST /confirmations/:id/approve|reject` with `{digest}`, the caller's session
 * token in the `toolgate-session` header. Every failure becomes a one-line {@link CliError} with
 * an exit code scripts can tell apart.
 */
import { SESSION_HEADER, type ConfirmationRequest } from '@toolgate/shared';
import { CliError, EXIT, type ExitCode } from './cli-error.js';
import { optionalString, type CommandIo, type OptionValues } from './command.js';

/** The approval API when neither `--url` nor TOOLGATE_CONFIRMATION_URL says otherwise. */
export const DEFAULT_CONFIRMATION_URL = 'http://127.0.0.1:9103';

/** How long one request may take, in ms. */
export const APPROVAL_TIMEOUT_MS = 10_000;

/** Where the approval API answers, and as whom to call it. */
export interface ApprovalApi {
  /** Base URL, without a trailing slash. */
  readonly url: string;
  /** The caller's session token (compact JWS). */
  readonly token: string;
}

/** Options every approval command takes. */
export const APPROVAL_OPTIONS = {
  url: {
    type: 'string',
    description: `the confirm stage's approval API (default TOOLGATE_CONFIRMATION_URL, else ${DEFAULT_CONFIRMATION_URL})`,
  },
  as: {
    type: 'string',
    description: 'your session token (default TOOLGATE_SESSION_TOKEN)',
  },
} as const;

/**
 * The API and token from `--url`/`--as`, else TOOLGATE_CONFIRMATION_URL/TOOLGATE_SESSION_TOKEN.
 *
 * @throws CliError (usage) when there is no token or the URL is not http(s).
 */
export function approvalApiOf(values: OptionValues, env: CommandIo['env']): ApprovalApi {
  const url =
    optionalString(values, 'url') ?? env['TOOLGATE_CONFIRMATION_URL'] ?? DEFAULT_CONFIRMATION_URL;
  if (!URL.canParse(url) || !['http:', 'https:'].includes(new URL(url).protocol)) {
    throw new CliError(`--url ${JSON.stringify(url)} is not an http(s) URL`, EXIT.usage);
  }
  const token = optionalString(values, 'as') ?? env['TOOLGATE_SESSION_TOKEN'];
  if (token === undefined || token.trim() === '') {
    throw new CliError(
      'a session token is required: --as <token> or TOOLGATE_SESSION_TOKEN',
      EXIT.usage,
    );
  }
  return { url: url.replace(/\/+$/, ''), token: token.trim() };
}

/** `GET /pending`: the caller's tenant's waiting confirmations, soonest to expire first. */
export async function listPending(
  api: ApprovalApi,
): Promise<{ readonly tenant: string; readonly confirmations: ConfirmationRequest[] }> {
  const body = await call(api, 'GET', '/pending', 'list pending confirmations');
  const { tenant, confirmations } = body as { tenant?: unknown; confirmations?: unknown };
  if (typeof tenant !== 'string' || !Array.isArray(confirmations)) {
    throw new CliError(
      `${api.url}/pending answered something that is not a pending list`,
      EXIT.failed,
    );
  }
  return { tenant, confirmations: confirmations as ConfirmationRequest[] };
}

/** A decision, as the API names it. */
export type Decision = 'approve' | 'reject';

/**
 * `POST /confirmations/:id/<decision>` with `{digest}`. Resolves when the API accepted it (202):
 * the confirm stage then checks the approver, the digest and the live objects and publishes the
 * observation.
 */
export async function sendDecision(
  api: ApprovalApi,
  confirmationId: string,
  decision: Decision,
  digest: string,
): Promise<void> {
  await call(
    api,
    'POST',
    `/confirmations/${encodeURIComponent(confirmationId)}/${decision}`,
    `${decision} ${confirmationId}`,
    { digest },
  );
}

/**
 * The digest of a pending confirmation, looked up in `GET /pending`.
 *
 * @throws CliError (not found) when the caller's tenant has no such pending confirmation.
 */
export async function digestOf(api: ApprovalApi, confirmationId: string): Promise<string> {
  const { tenant, confirmations } = await listPending(api);
  const found = confirmations.find((c) => c.confirmationId === confirmationId);
  if (found === undefined) {
    throw new CliError(
      `no pending confirmation ${confirmationId} for tenant ${tenant}: it was decided, expired, or is not yours to see`,
      EXIT.notFound,
    );
  }
  return found.digest;
}

async function call(
  api: ApprovalApi,
  method: 'GET' | 'POST',
  path: string,
  what: string,
  body?: unknown,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        [SESSION_HEADER]: api.token,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(APPROVAL_TIMEOUT_MS),
    });
  } catch (cause) {
    throw new CliError(
      `${what}: cannot reach the approval API at ${api.url} (${reasonOf(cause)}); is the confirm stage running? (--url, TOOLGATE_CONFIRMATION_URL)`,
      EXIT.unavailable,
      { cause },
    );
  }
  const parsed = parseBody(await bodyOf(response, what, api));
  if (response.status >= 200 && response.status < 300) return parsed;
  throw httpFailure(what, response.status, parsed);
}

/** The answer's body; an answer cut off (connection lost, the timeout) is as good as none. */
async function bodyOf(response: Response, what: string, api: ApprovalApi): Promise<string> {
  try {
    return await response.text();
  } catch (cause) {
    throw new CliError(
      `${what}: the approval API at ${api.url} broke off its answer (${reasonOf(cause)})`,
      EXIT.unavailable,
      { cause },
    );
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function reasonOf(cause: unknown): string {
  const e = cause as { name?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (e.name === 'TimeoutError') return `no answer within ${APPROVAL_TIMEOUT_MS} ms`;
  if (typeof e.cause?.code === 'string') return e.cause.code;
  return typeof e.message === 'string' ? e.message : String(cause);
}

const STATUS_EXITS: Readonly<Record<number, readonly [ExitCode, string]>> = {
  400: [EXIT.usage, 'refused as invalid'],
  401: [EXIT.denied, 'your session was refused'],
  403: [EXIT.denied, 'not allowed'],
  404: [EXIT.notFound, 'not found'],
  409: [EXIT.failed, 'conflict'],
};

/**
 * The error for an HTTP failure: 400 → usage, 401/403 → denied, 404 → not found, 409 → failed,
 * 5xx → unavailable, anything else → failed. The message carries the API's own (public) message.
 */
export function httpFailure(what: string, status: number, body: unknown): CliError {
  const [exitCode, meaning] =
    STATUS_EXITS[status] ??
    (status >= 500 ? [EXIT.unavailable, 'the approval API failed'] : [EXIT.failed, 'refused']);
  const said = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const detail =
    typeof said?.message === 'string'
      ? `: ${typeof said.code === 'string' ? `${said.code}: ` : ''}${said.message}`
      : '';
  return new CliError(`${what}: ${meaning} (HTTP ${status})${detail}`, exitCode);
}
