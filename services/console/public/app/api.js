/**
 * Calls to the console's own API. The session lives in an HttpOnly cookie the page cannot read;
 * the CSRF token it echoes on every change is kept here, in memory only.
 */

let csrf = '';

/** Remembers the session's CSRF token (from GET /api/session). */
export function useCsrf(token) {
  csrf = token;
}

/** `{status, ok, data}` of one API call; never throws for an HTTP error. */
export async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-toolgate-csrf'] = csrf;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    return { status: 0, ok: false, data: { error: { message: 'The console cannot be reached.' } } };
  }
  let data = null;
  if (response.status !== 204) {
    try {
      data = await response.json();
    } catch {
      data = null;
    }
  }
  return { status: response.status, ok: response.ok, data };
}

/** The message of a failed call, in words. */
export function errorText(answer) {
  return answer.data?.error?.message ?? `The console answered ${answer.status}.`;
}
