/**
 * The scripted agents: one agent client per tenant, each connected as that tenant's principal
 * (`agent-acme`, `agent-globex`), which may read its own tenant's observations and no other's. A
 * proposal goes through the client of the tenant its session names (carol's to globex's, alice's
 * and bob's to acme's), as each tenant's agents would send their own.
 */
import { createAgentClient, type AgentClient, type CallOptions } from '@toolgate/agent-client';
import { agentPrincipal, EXAMPLE_TENANTS } from '@toolgate/platform';
import type { Observation, Proposal } from '@toolgate/shared';
import type { DemoSettings } from './demo-settings.js';

/** The tenants' clients, and a `call` that routes each proposal to the right one. */
export interface DemoAgents {
  /** The client of each tenant. */
  readonly byTenant: ReadonlyMap<string, AgentClient>;
  /** Sends with `defaultSession` unless told otherwise, through the session's tenant's client. */
  call(proposal: Proposal, options?: CallOptions): Promise<Observation>;
  /** Closes every client. */
  close(): Promise<void>;
}

/**
 * Connects one client per example tenant, each with the session of `sessions[tenant]` as its own.
 *
 * @throws what `createAgentClient` throws; the clients already connected are closed again.
 */
export async function connectAgents(
  settings: DemoSettings,
  sessions: Readonly<Record<string, string>>,
  defaultSession: string,
): Promise<DemoAgents> {
  const opened = await Promise.allSettled(
    EXAMPLE_TENANTS.map(async (tenant) => {
      const session = sessions[tenant];
      if (session === undefined) throw new Error(`no session for tenant ${tenant}`);
      const env = settings.envOf(agentPrincipal(tenant));
      return [tenant, await createAgentClient({ env, session })] as const;
    }),
  );
  const clients = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const failed = opened.find((o) => o.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(clients.map(([, client]) => client.close()));
    throw failed.reason;
  }
  return routed(new Map(clients), defaultSession);
}

function routed(byTenant: ReadonlyMap<string, AgentClient>, defaultSession: string): DemoAgents {
  return {
    byTenant,
    call(proposal, options = {}) {
      const session = typeof options.session === 'string' ? options.session : defaultSession;
      const tenant = tenantOfToken(session);
      const client = byTenant.get(tenant);
      if (client === undefined) {
        return Promise.reject(new Error(`no agent client for tenant ${tenant}`));
      }
      return client.call(proposal, { ...options, session });
    },
    async close() {
      await Promise.all([...byTenant.values()].map((client) => client.close()));
    },
  };
}

/**
 * The `tenant` claim of a session token (a JWS), read without verifying it: only to pick the
 * client a proposal goes through; the gate verifies the token. `''` when it names none.
 */
export function tenantOfToken(token: string): string {
  const payload = token.split('.')[1] ?? '';
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    const tenant = (claims as { tenant?: unknown } | null)?.tenant;
    return typeof tenant === 'string' ? tenant : '';
  } catch {
    return '';
  }
}
