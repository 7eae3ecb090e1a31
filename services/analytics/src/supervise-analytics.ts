/**
 * Runs the analytics service as a process: its own variables (Kafka as `toolgate-analytics`, the
 * registry, prefixes, window settings; never the integrity key nor Redis) → logger → bus and codec
 * → the service → HTTP (/healthz, /readyz, /metrics), all under one lifecycle that a signal or a
 * crashed consumer stops in reverse order. `main.ts`, `toolgate start analytics` and the tests
 * start it through here.
 */
import {
  analyticsRoutes,
  createAnalyticsHub,
  createAnalyticsMetrics,
  createGateWithSessionKeys,
  analyticsGroupPrefix,
  ANALYTICS_VARIABLES,
  CONFIG_VARIABLES,
  createBus,
  createCodec,
  processLifecycle,
  processLogger,
  DEFAULT_ANALYTICS_HTTP_PORT,
  describeKafkaSecurity,
  gateTopics,
  KAFKA_SECURITY_VARIABLES,
  kafkaSecurityOf,
  loadVariables,
  startHttpServer,
  type ConfigOf,
  type Env,
  type Lifecycle,
  type MetricsSource,
  type ProcessEvents,
  type Route,
} from '@toolgate/platform';
import {
  createAlertEngine,
  MESSAGE_SCHEMAS,
  resolveAlertRules,
  WINDOW_SIZES,
  type Deployment,
} from '@toolgate/shared';
import type { DestinationStream } from 'pino';
import { analyticsOutputs } from './analytics-outputs.js';
import { SERVICE, startAnalytics, type AnalyticsDeps, type RunningAnalytics } from './service.js';

/** The variables the analytics process reads (see docs/configuration.md). */
export const ANALYTICS_PROCESS_VARIABLES = {
  KAFKA_BROKERS: CONFIG_VARIABLES.KAFKA_BROKERS,
  ...KAFKA_SECURITY_VARIABLES,
  SCHEMA_REGISTRY_URL: CONFIG_VARIABLES.SCHEMA_REGISTRY_URL,
  TOPIC_PREFIX: CONFIG_VARIABLES.TOPIC_PREFIX,
  GROUP_PREFIX: CONFIG_VARIABLES.GROUP_PREFIX,
  HTTP_HOST: CONFIG_VARIABLES.HTTP_HOST,
  HTTP_PORT: CONFIG_VARIABLES.HTTP_PORT,
  LOG_LEVEL: CONFIG_VARIABLES.LOG_LEVEL,
  INSTANCE_ID: CONFIG_VARIABLES.INSTANCE_ID,
  SHUTDOWN_TIMEOUT_MS: CONFIG_VARIABLES.SHUTDOWN_TIMEOUT_MS,
  ...ANALYTICS_VARIABLES,
} as const;

/** The loaded {@link ANALYTICS_PROCESS_VARIABLES}. */
export type AnalyticsConfig = ConfigOf<typeof ANALYTICS_PROCESS_VARIABLES>;

/** Options of {@link superviseAnalytics}. */
export interface SuperviseAnalyticsOptions {
  readonly env: Env;
  /** Where log lines go; default standard output. */
  readonly logDestination?: DestinationStream;
  /** Ends the process after a stop; default `process.exit`. */
  readonly exit?: (code: number) => void;
  /** Where signals are heard; default `process`. */
  readonly process?: ProcessEvents;
  /**
   * The deployment (its `analytics.alerts` rules, and its session keys for the HTTP API). Without
   * one, the alert rules are the defaults and the windows and alerts API is not served: it takes
   * the same session tokens as the approval API, and only a deployment says how to verify them.
   */
  readonly deployment?: Deployment;
  /** Routes served beside /healthz, /readyz, /metrics and the analytics API. */
  readonly routes?: (service: RunningAnalytics) => readonly Route[];
  /** Served at /metrics; default the analytics series ({@link createAnalyticsMetrics}). */
  readonly metrics?: MetricsSource;
}

/** The running analytics process. */
export interface SupervisedAnalytics {
  readonly config: AnalyticsConfig;
  readonly service: RunningAnalytics;
  /** The HTTP port of /healthz, /readyz and /metrics. */
  readonly port: number;
  readonly lifecycle: Lifecycle;
}

/**
 * Starts the analytics process. Throws a ConfigError naming every bad variable before connecting
 * anything; past that, a failed start closes what it opened and rethrows (the caller exits).
 */
export async function superviseAnalytics(
  options: SuperviseAnalyticsOptions,
): Promise<SupervisedAnalytics> {
  const config = loadVariables(options.env, ANALYTICS_PROCESS_VARIABLES);
  const logger = processLogger(config, SERVICE, options);
  const lifecycle = processLifecycle(config, logger, options);
  try {
    const security = kafkaSecurityOf(config);
    logger.info({ kafka: describeKafkaSecurity(security) }, 'Kafka identity');
    const bus = createBus({
      brokers: [...config.kafkaBrokers],
      clientId: `toolgate-analytics-${config.instanceId}`,
      logger,
      security,
    });
    lifecycle.onStop('bus', () => bus.close());
    const topics = gateTopics(config.topicPrefix);
    const metrics = createAnalyticsMetrics();
    const hub = createAnalyticsHub({
      auditEventsKeptMs: WINDOW_SIZES.hour + config.analyticsHourGraceMs,
    });
    // Batches may be committed before startAnalytics resolves: the open windows are none till then.
    const started: { service?: RunningAnalytics } = {};
    const outputs = analyticsOutputs(metrics, hub, () => started.service?.live() ?? []);
    const service = await startAnalytics({
      bus,
      codec: createCodec({ registryUrl: config.schemaRegistryUrl, logger, compatibility: 'NONE' }),
      topics,
      groupId: analyticsGroupPrefix(config.groupPrefix),
      instanceId: config.instanceId,
      settings: settingsOf(config),
      tickMs: config.analyticsTickMs,
      logger,
      onCrash: (error) => void lifecycle.stop('the analytics consumer crashed', error),
      alerts: createAlertEngine(resolveAlertRules(options.deployment?.analytics?.alerts)),
      alertSchema: MESSAGE_SCHEMAS.alerts,
      observe: outputs.observe,
      committed: outputs.committed,
      holding: outputs.holding,
    });
    started.service = service;
    lifecycle.onStop('analytics service', () => service.stop());
    const refresh = setInterval(() => outputs.refresh(service.live()), config.analyticsTickMs);
    refresh.unref();
    lifecycle.onStop('analytics live view', () => {
      clearInterval(refresh);
      outputs.stop();
    });
    const api =
      options.deployment === undefined
        ? []
        : analyticsRoutes({
            view: hub,
            verifier: createGateWithSessionKeys(options.deployment, {}, logger).verifier,
            now: () => new Date(),
            ...(config.analyticsOperatorTenant === ''
              ? {}
              : { access: { installationTenant: config.analyticsOperatorTenant } }),
          });
    const http = await startHttpServer({
      port: config.httpPort ?? DEFAULT_ANALYTICS_HTTP_PORT,
      host: config.httpHost,
      metrics: options.metrics ?? metrics,
      routes: [...api, ...(options.routes?.(service) ?? [])],
      ready: () => service.ready(),
      membership: () => service.membership(),
      logger,
    });
    lifecycle.onStop('analytics http', () => http.close());
    logger.info({ port: http.port }, `${SERVICE} started`);
    return { config, service, port: http.port, lifecycle };
  } catch (error) {
    await lifecycle.abandon('start-up failed', error);
    throw error;
  }
}

function settingsOf(config: AnalyticsConfig): AnalyticsDeps['settings'] {
  return {
    graceMs: { minute: config.analyticsMinuteGraceMs, hour: config.analyticsHourGraceMs },
    idleMs: config.analyticsIdleMs,
    maxSkewMs: 60_000,
  };
}
