/**
 * The caller of an approval API route: their session token, verified, or the 401 to answer.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  errorResponse,
  sessionTokenOf,
  type HttpResponse,
  type StageDepsWith,
} from '@toolgate/platform';
import type { Principal } from '@toolgate/shared';

/** A signed-in caller: the token as sent and the principal it verifies to. */
export interface SignedIn {
  readonly token: string;
  readonly principal: Principal;
}

/** The caller `headers` sign in as (a bearer session token), or a 401 saying why not. */
export async function signedIn(
  deps: StageDepsWith,
  headers: IncomingHttpHeaders,
): Promise<SignedIn | HttpResponse> {
  const token = sessionTokenOf(headers);
  const principal = await deps.gate.verifier.verify(token, deps.now());
  return principal.ok && token !== undefined
    ? { token, principal: principal.value }
    : errorResponse(401, 'unauthorized', principal.ok ? 'Sign in.' : principal.publicMessage, {
        'www-authenticate': 'Bearer',
      });
}
