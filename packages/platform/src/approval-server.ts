/**
 * The confirm stage's approval API on a server of its own: TOOLGATE_APPROVAL_HOST and _PORT,
 * HTTPS when TOOLGATE_APPROVAL_TLS_CERT_FILE and _KEY_FILE are given. It serves the stage's routes
 * and its health (`/healthz`, `/readyz`, for a load balancer), never `/metrics`; the stage's
 * health and metrics server never serves the approval routes.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '@toolgate/shared';
import type { Config } from './config.js';
import { startHttpServer, type HttpServer, type HttpServerOptions, type Route } from './http.js';

/** Options of {@link startApprovalServer}. */
export interface ApprovalServerOptions {
  readonly config: Pick<
    Config,
    'approvalHost' | 'approvalPort' | 'approvalTlsCertFile' | 'approvalTlsKeyFile'
  >;
  readonly routes: readonly Route[];
  readonly ready: () => boolean;
  readonly logger?: HttpServerOptions['logger'];
}

/** A listening approval API, and whether it speaks HTTPS. */
export interface ApprovalServer extends HttpServer {
  readonly tls: boolean;
}

/**
 * Starts the approval API.
 *
 * @throws ConfigError when the certificate or key cannot be read or do not make a TLS server
 *   (not PEM, or a key that does not match the certificate).
 */
export async function startApprovalServer(options: ApprovalServerOptions): Promise<ApprovalServer> {
  const { config } = options;
  const tls = tlsOf(config);
  const server = await startHttpServer({
    port: config.approvalPort,
    host: config.approvalHost,
    ready: options.ready,
    routes: options.routes,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(tls === undefined ? {} : { tls }),
  }).catch((error: unknown) => {
    if (tls === undefined || isListenError(error)) throw error;
    throw new ConfigError('configuration', [
      `TOOLGATE_APPROVAL_TLS_CERT_FILE and TOOLGATE_APPROVAL_TLS_KEY_FILE do not make a TLS server (${reasonOf(error)}): give a PEM certificate and its own PEM private key`,
    ]);
  });
  return { ...server, tls: tls !== undefined };
}

function tlsOf(config: ApprovalServerOptions['config']) {
  const { approvalTlsCertFile: certFile, approvalTlsKeyFile: keyFile } = config;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    throw new ConfigError('configuration', [
      'TOOLGATE_APPROVAL_TLS_CERT_FILE and TOOLGATE_APPROVAL_TLS_KEY_FILE go together (HTTPS for the approval API): give both or neither',
    ]);
  }
  const read = (file: string, name: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new ConfigError('configuration', [
        `${name} names ${file}, which cannot be read (${reasonOf(error)})`,
      ]);
    }
  };
  return {
    cert: read(certFile, 'TOOLGATE_APPROVAL_TLS_CERT_FILE'),
    key: read(keyFile, 'TOOLGATE_APPROVAL_TLS_KEY_FILE'),
  };
}

function isListenError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL'].includes(code);
}

function reasonOf(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.message === 'string' ? e.message : String(error);
}
