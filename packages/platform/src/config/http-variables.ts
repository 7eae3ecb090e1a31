/**
 * Where a stage serves /healthz, /readyz and /metrics, and each stage's default port. The confirm
 * stage's approval API has an address of its own (`approval-variables.ts`).
 */
import type { VariableTable } from './variable-spec.js';

const PORT = { minimum: 0, maximum: 65_535 } as const;

/** TOOLGATE_HTTP_HOST and TOOLGATE_HTTP_PORT. */
export const HTTP_VARIABLES = {
  HTTP_HOST: {
    key: 'httpHost',
    kind: 'string',
    default: '127.0.0.1',
    schema: { pattern: '^[A-Za-z0-9.:_-]+$' },
    description:
      'Address the HTTP server binds to. The default keeps it off the network; use 0.0.0.0 in a container so probes and Prometheus can reach it.',
  },
  HTTP_PORT: {
    key: 'httpPort',
    kind: 'integer',
    schema: PORT,
    description:
      'Port of /healthz, /readyz and /metrics; 0 picks a free one. Unset: the stage default (validate 9101, authorize 9102, confirm 9103, execute 9104, analytics 9105).',
  },
} as const satisfies VariableTable;

/** Default HTTP ports of the stages (TOOLGATE_HTTP_PORT overrides). */
export const DEFAULT_HTTP_PORTS = {
  validate: 9101,
  authorize: 9102,
  confirm: 9103,
  execute: 9104,
} as const;

/** A stage that runs as a service. */
export type ServiceStage = keyof typeof DEFAULT_HTTP_PORTS;

/** The HTTP port of `stage`: TOOLGATE_HTTP_PORT if set, else the stage's default. */
export function httpPortFor(config: { readonly httpPort?: number }, stage: ServiceStage): number {
  return config.httpPort ?? DEFAULT_HTTP_PORTS[stage];
}
