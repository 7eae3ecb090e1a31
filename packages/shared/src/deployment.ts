/**
 * A deployment: the tools, policies, session keys, object store and ceilings of one Toolgate
 * installation, as its configuration file declares them. Trusted server configuration.
 */
import type { AlertRulesInput } from './analytics/alerts/alert-rules.js';
import type { SessionKeys } from './auth/index.js';
import type { PolicySource } from './authz/index.js';
import type { Ceilings } from './limits/index.js';
import type { ObjectStore } from './tool-spec.js';
import type { ResolvedObject } from './types.js';
import type { AnyToolSpec } from './tools/index.js';

/** A tool worker as a deployment names it. */
export interface DeploymentWorker {
  /** Its Kafka user name, e.g. `worker-billing`. */
  readonly principal: string;
  /** Its name: its consumer group is `<group prefix>toolgate.worker.<name>`. */
  readonly name: string;
  /** The tools whose commands it runs. */
  readonly tools: readonly string[];
}

/** The analytics service's settings in a deployment. */
export interface DeploymentAnalytics {
  /**
   * Overrides of the alert rules' defaults, per rule (`rules.<rule>.<setting>`), and how many audit
   * events an alert names (`evidenceLimit`); see docs/alerts.md. Checked at start by every
   * process: an unknown rule or setting, or a value out of bounds, is refused with every problem.
   */
  readonly alerts?: AlertRulesInput;
}

/** What a configuration file (`toolgate.config.ts`) exports as its default. */
export interface Deployment {
  /** A short name for logs and metrics. */
  readonly name: string;
  /** Every tool the gate knows. */
  readonly tools: readonly AnyToolSpec[];
  /**
   * Every tenant the gate serves: each has its own observations topic
   * (`toolgate.observations.<tenant>`) read by its agents alone. A session of a tenant not
   * listed here is refused (`authentication/unknown_tenant`). 1–64 characters of
   * `[A-Za-z0-9_-]` each.
   */
  readonly tenants: readonly string[];
  /**
   * The tool workers that run the tools, for the ACL table (`toolgate acls`): each one's Kafka
   * principal, its name (TOOLGATE_WORKER_NAME, which names its consumer group) and its tools.
   */
  readonly workers?: readonly DeploymentWorker[];
  /** Cedar policies; their hash is the policy version recorded with every decision. */
  readonly policies: readonly PolicySource[];
  /**
   * How session tokens are verified: the identity provider's JWKS (URL or file, production) or an
   * HS256 secret (development), and the claims required (issuer, audience, lifetime).
   */
  readonly sessions: SessionKeys;
  /**
   * The objects this deployment starts with (the example's invoices, drafts, payments). The
   * services seed them into the shared store when absent; `evaluate` resolves against a copy.
   */
  readonly seed?: readonly ResolvedObject[];
  /**
   * A store of the deployment's own, for objects that live elsewhere (the deployer's database).
   * When absent, objects are resolved from the gate's store (seeded with `seed`).
   */
  readonly objects?: () => ObjectStore;
  /** Overrides of the default ceilings (DESIGN §7). */
  readonly ceilings?: Partial<Ceilings>;
  /**
   * How long a pending confirmation waits for a person, in whole seconds from 1 to 604800 (7
   * days); anything else is refused at start. Default 1800.
   */
  readonly confirmationTtlSeconds?: number;
  /** Stream analytics on the audit topic: its alert rules. Every field optional. */
  readonly analytics?: DeploymentAnalytics;
}

/** Identity for typing: lets a configuration file declare a deployment with inference. */
export function defineDeployment(deployment: Deployment): Deployment {
  return deployment;
}
