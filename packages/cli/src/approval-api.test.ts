import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EXIT } from './cli-error.js';
import { runCaptured } from './run-cli.test-support.js';
import { approvalApiOf, DEFAULT_APPROVAL_URL, httpFailure } from './approval-api.js';

describe('httpFailure', () => {
  it('maps statuses to exit codes scripts can rely on, quoting the API', () => {
    const unauthorized = httpFailure('list pending confirmations', 401, {
      error: { code: 'unauthorized', message: 'Your session has expired.' },
    });
    expect(unauthorized).toMatchObject({
      exitCode: EXIT.denied,
      message:
        'list pending confirmations: your session was refused (HTTP 401): unauthorized: Your session has expired.',
    });
    expect(httpFailure('x', 403, {}).exitCode).toBe(EXIT.denied);
    expect(httpFailure('x', 404, 'Not Found').exitCode).toBe(EXIT.notFound);
    expect(httpFailure('x', 409, null).exitCode).toBe(EXIT.failed);
    expect(httpFailure('x', 400, {}).exitCode).toBe(EXIT.usage);
    expect(httpFailure('x', 503, {}).exitCode).toBe(EXIT.unavailable);
    expect(httpFailure('x', 418, {})).toMatchObject({
      exitCode: EXIT.failed,
      message: 'x: refused (HTTP 418)',
    });
  });
});

describe('approvalApiOf', () => {
  it('takes options first, then the environment, then the default URL', () => {
    expect(approvalApiOf({ as: 't1' }, {})).toEqual({ url: DEFAULT_APPROVAL_URL, token: 't1' });
    expect(
      approvalApiOf({}, { TOOLGATE_APPROVAL_URL: 'http://h:1/', TOOLGATE_SESSION_TOKEN: 't2' }),
    ).toEqual({ url: 'http://h:1', token: 't2' });
    expect(
      approvalApiOf(
        { url: 'https://x', as: 't3' },
        { TOOLGATE_APPROVAL_URL: 'http://h:1', TOOLGATE_SESSION_TOKEN: 't2' },
      ),
    ).toEqual({ url: 'https://x', token: 't3' });
  });

  it('refuses a missing token and a URL that is not http(s) as usage errors', () => {
    expect(() => approvalApiOf({}, {})).toThrow(
      expect.objectContaining({
        exitCode: EXIT.usage,
        message: expect.stringContaining('--as') as string,
      }),
    );
    expect(() => approvalApiOf({ as: 't', url: 'ftp://x' }, {})).toThrow(/not an http\(s\) URL/);
    expect(() => approvalApiOf({ as: 't', url: 'nope' }, {})).toThrow(/not an http\(s\) URL/);
    expect(() => approvalApiOf({ as: 't', ca: '/nowhere/ca.pem' }, {})).toThrow(
      expect.objectContaining({
        exitCode: EXIT.usage,
        message: '--ca /nowhere/ca.pem cannot be read (ENOENT)',
      }),
    );
    expect(() =>
      approvalApiOf({ as: 't' }, { TOOLGATE_APPROVAL_CA_FILE: '/nowhere/ca.pem' }),
    ).toThrow(/cannot be read \(ENOENT\)/);
  });
});

describe('toolgate pending against an API that breaks off its answer', () => {
  it('exits 3 with one line, not 1 with a stack trace', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '64' });
      response.write('{"tenant":"acme",', () => response.socket?.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const run = await runCaptured(['pending', '--url', url, '--as', 't']);
      expect(run.err).not.toContain('unexpected error');
      expect(run.err).toMatch(/^toolgate pending: list pending confirmations: .+\n$/);
      expect(run.code).toBe(EXIT.unavailable);
    } finally {
      server.close();
    }
  });
});
