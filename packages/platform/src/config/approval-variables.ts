/**
 * Where the confirm stage serves its approval API: an address of its own, apart from /healthz,
 * /readyz and /metrics, so that it can be exposed to approvers while metrics stay on the
 * operator's network; and, optionally, TLS from a certificate and key file.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { VariableTable } from './variable-spec.js';

/** The approval API's port when TOOLGATE_APPROVAL_PORT is unset. */
export const DEFAULT_APPROVAL_PORT = 9110;

/** TOOLGATE_APPROVAL_HOST, _PORT, _TLS_CERT_FILE and _TLS_KEY_FILE. */
export const APPROVAL_VARIABLES = {
  APPROVAL_HOST: {
    key: 'approvalHost',
    kind: 'string',
    default: '127.0.0.1',
    schema: { pattern: '^[A-Za-z0-9.:_-]+$' },
    description:
      "Address the confirm stage's approval API (/pending, /confirmations/:id/approve|reject) binds to, apart from /metrics. The default keeps it off the network; expose it with TLS.",
  },
  APPROVAL_PORT: {
    key: 'approvalPort',
    kind: 'integer',
    default: DEFAULT_APPROVAL_PORT,
    schema: { minimum: 0, maximum: 65_535 },
    description:
      "Port of the confirm stage's approval API; 0 picks a free one. Never the port of /metrics.",
  },
  APPROVAL_TLS_CERT_FILE: {
    key: 'approvalTlsCertFile',
    kind: 'string',
    description:
      "PEM file of the approval API's certificate (its chain after it); given with `APPROVAL_TLS_KEY_FILE`, the API answers HTTPS only. Unset: plain HTTP.",
  },
  APPROVAL_TLS_KEY_FILE: {
    key: 'approvalTlsKeyFile',
    kind: 'string',
    description:
      "PEM file of the approval API's private key; given with `APPROVAL_TLS_CERT_FILE`. A secret: keep the file readable by the confirm stage only.",
  },
} as const satisfies VariableTable;

/**
 * The approval API's TLS settings as a whole: the certificate and key go together, and each file
 * must be readable. Checked at start, with the other configuration problems.
 */
export function approvalTlsProblems(input: Readonly<Record<string, unknown>>): string[] {
  const cert = input['TOOLGATE_APPROVAL_TLS_CERT_FILE'];
  const key = input['TOOLGATE_APPROVAL_TLS_KEY_FILE'];
  if (cert === undefined && key === undefined) return [];
  if (typeof cert !== 'string' || typeof key !== 'string') {
    return [
      'TOOLGATE_APPROVAL_TLS_CERT_FILE and TOOLGATE_APPROVAL_TLS_KEY_FILE go together (HTTPS for the approval API): give both or neither',
    ];
  }
  const problems: string[] = [];
  const read = (file: string, name: string) => {
    try {
      const bytes = readFileSync(file);
      if (bytes.length > 0) return bytes;
      problems.push(`${name} names ${file}, which is empty`);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      problems.push(`${name} names ${file}, which cannot be read (${String(code ?? error)})`);
    }
    return undefined;
  };
  const certPem = read(cert, 'TOOLGATE_APPROVAL_TLS_CERT_FILE');
  const keyPem = read(key, 'TOOLGATE_APPROVAL_TLS_KEY_FILE');
  if (certPem === undefined || keyPem === undefined) return problems;
  try {
    createSecureContext({ cert: certPem, key: keyPem });
    return [];
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown };
    const reason = typeof e.code === 'string' ? e.code : String(e.message ?? error);
    return [
      `TOOLGATE_APPROVAL_TLS_CERT_FILE and TOOLGATE_APPROVAL_TLS_KEY_FILE are not a PEM certificate and its own PEM private key (${reason})`,
    ];
  }
}
