/**
 * A client of the confirm stage's approval API (services/confirm/src/approval-routes.ts):
 * `GET /pending` (followed page by page), `POST /confirmations/:id/approve|reject` with
 * `{digest}` (and a rejection's `reason`), the caller's session token in the `toolgate-session` header, over HTTP or HTTPS
 * (trusting a CA given with `--ca`). Every failure becomes a one-line {@link CliError} with an
 * exit code scripts can tell apart.
 */
import { readFileSync } from 'node:fs';
import { SESSION_HEADER, type PendingView } from '@toolgate/shared';
import { sendRequest, TransportError } from './approval-http.js';
import { CliError, EXIT, type ExitCode } from './cli-error.js';
import { optionalString, type CommandIo, type OptionValues } from './command.js';

/** The approval API when neither `--url` nor TOOLGATE_APPROVAL_URL says otherwise. */
export const DEFAULT_APPROVAL_URL = 'http://127.0.0.1:9110';

/** Most pages of `GET /pending` followed: a bound against an API that never ends its list. */
export const MAX_PAGES = 1000;

/** How long one request may take, in ms. */
export const APPROVAL_TIMEOUT_MS = 10_000;

/** Where the approval API answers, and as whom to call it. */
export interface ApprovalApi {
  /** Base URL, without a trailing slash. */
  readonly url: string;
  /** The caller's session token (compact JWS). */
  readonly token: string;
  /** PEM of the CA certificates to trust for an https URL, besides the system's. */
  readonly ca?: Buffer;
}

/** Options every approval command takes. */
export const APPROVAL_OPTIONS = {
  url: {
    type: 'string',
    description: `the confirm stage's approval API (default TOOLGATE_APPROVAL_URL, else ${DEFAULT_APPROVAL_URL})`,
  },
  ca: {
    type: 'string',
    description:
      "PEM file of the CA that signed an https approval API's certificate (default TOOLGATE_APPROVAL_CA_FILE)",
  },
  as: {
    type: 'string',
    description: 'your session token (default TOOLGATE_SESSION_TOKEN)',
  },
} as const;

/**
 * The API, token and CA from `--url`/`--as`/`--ca`, else TOOLGATE_APPROVAL_URL,
 * TOOLGATE_SESSION_TOKEN and TOOLGATE_APPROVAL_CA_FILE.
 *
 * @throws CliError (usage) when there is no token, the URL is not http(s) or the CA file cannot
 *   be read.
 */
export function approvalApiOf(values: OptionValues, env: CommandIo['env']): ApprovalApi {
  const url =
    optionalString(values, 'url') ?? nonEmpty(env['TOOLGATE_APPROVAL_URL']) ?? DEFAULT_APPROVAL_URL;
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
  const caFile = optionalString(values, 'ca') ?? nonEmpty(env['TOOLGATE_APPROVAL_CA_FILE']);
  const ca = caFile === undefined ? undefined : readCa(caFile);
  return { url: url.replace(/\/+$/, ''), token: token.trim(), ...(ca === undefined ? {} : { ca }) };
}

function readCa(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(
      `--ca ${file} cannot be read (${typeof code === 'string' ? code : String(error)})`,
      EXIT.usage,
    );
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Every pending confirmation the caller may see, and their tenant. */
export interface PendingList {
  readonly tenant: string;
  readonly confirmations: PendingView[];
}

/**
 * `GET /pending`, every page: the caller's tenant's waiting confirmations that they may see,
 * soonest to expire first. `until` stops early once a page holds what it looks for.
 */
export async function listPending(
  api: ApprovalApi,
  until?: (c: PendingView) => boolean,
): Promise<PendingList> {
  const confirmations: PendingView[] = [];
  let tenant = '';
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const query = cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`;
    const body = await call(api, 'GET', `/pending${query}`, 'list pending confirmations');
    const answer = body as { tenant?: unknown; confirmations?: unknown; next?: unknown };
    if (
      typeof answer.tenant !== 'string' ||
      !Array.isArray(answer.confirmations) ||
      (answer.next !== undefined && typeof answer.next !== 'string')
    ) {
      throw new CliError(
        `${api.url}/pending answered something that is not a pending list`,
        EXIT.failed,
      );
    }
    tenant = answer.tenant;
    confirmations.push(...(answer.confirmations as PendingView[]));
    if (answer.next === undefined || (until !== undefined && confirmations.some(until))) {
      return { tenant, confirmations };
    }
    cursor = answer.next;
  }
  throw new CliError(
    `${api.url}/pending did not end its list within ${MAX_PAGES} pages`,
    EXIT.failed,
  );
}

/** A decision, as the API names it. */
export type Decision = 'approve' | 'reject';

/**
 * `POST /confirmations/:id/<decision>` with `{digest}`, and `reason` when given (a rejection's,
 * which the agent's observation carries). Resolves when the API accepted it (202): the confirm
 * stage then checks the approver, the digest and the live objects and publishes the observation.
 */
export async function sendDecision(
  api: ApprovalApi,
  confirmationId: string,
  decision: Decision,
  digest: string,
  reason?: string,
): Promise<void> {
  await call(
    api,
    'POST',
    `/confirmations/${encodeURIComponent(confirmationId)}/${decision}`,
    `${decision} ${confirmationId}`,
    { digest, ...(reason === undefined ? {} : { reason }) },
  );
}

/**
 * The digest of a pending confirmation, looked up in `GET /pending`.
 *
 * @throws CliError (not found) when the caller's tenant has no such pending confirmation.
 */
export async function digestOf(api: ApprovalApi, confirmationId: string): Promise<string> {
  const named = (c: PendingView) => c.confirmationId === confirmationId;
  const { tenant, confirmations } = await listPending(api, named);
  const found = confirmations.find(named);
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
  let answer: { status: number; text: string };
  try {
    answer = await sendRequest({
      url: `${api.url}${path}`,
      method,
      headers: {
        [SESSION_HEADER]: api.token,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(api.ca === undefined ? {} : { ca: api.ca }),
      timeoutMs: APPROVAL_TIMEOUT_MS,
    });
  } catch (cause) {
    throw transportFailure(what, api, cause);
  }
  const parsed = parseBody(answer.text);
  if (answer.status >= 200 && answer.status < 300) return parsed;
  throw httpFailure(what, answer.status, parsed);
}

function transportFailure(what: string, api: ApprovalApi, cause: unknown): CliError {
  const e = cause instanceof TransportError ? cause : new TransportError(String(cause), false);
  if (e.brokenOff) {
    return new CliError(
      `${what}: the approval API at ${api.url} broke off its answer (${e.reason})`,
      EXIT.unavailable,
      { cause },
    );
  }
  const untrusted = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(e.reason)
    ? '; trust the CA that signed its certificate with --ca or TOOLGATE_APPROVAL_CA_FILE'
    : '; is the confirm stage running? (--url, TOOLGATE_APPROVAL_URL)';
  return new CliError(
    `${what}: cannot reach the approval API at ${api.url} (${e.reason})${untrusted}`,
    EXIT.unavailable,
    { cause },
  );
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
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
