/**
 * The analytics service in its own process, for the crash and rebalance test: started on the
 * `TOOLGATE_*` environment it is given, prints `ready` once its consumer joined its group and its
 * partitions' window state is restored. Its group session is 6 s, so a killed member leaves the
 * group soon. TOOLGATE_ANALYTICS_* set the windows' grace and idle time as in production.
 */
import {
  analyticsGroupPrefix,
  createBus,
  createCodec,
  createLogger,
  gateTopics,
  kafkaSecurityOf,
  loadVariables,
  type Bus,
} from '@toolgate/platform';
import { ANALYTICS_PROCESS_VARIABLES, startAnalytics } from '../../services/analytics/src/index.js';

const config = loadVariables(process.env, ANALYTICS_PROCESS_VARIABLES);
const logger = createLogger({
  level: config.logLevel,
  stage: 'analytics',
  instanceId: config.instanceId,
});
const bus: Bus = createBus({
  brokers: [...config.kafkaBrokers],
  clientId: `analytics-child-${config.instanceId}`,
  logger,
  security: kafkaSecurityOf(config),
});
const service = await startAnalytics({
  bus: { ...bus, consumer: (options) => bus.consumer({ ...options, sessionTimeoutMs: 6_000 }) },
  codec: createCodec({ registryUrl: config.schemaRegistryUrl, logger }),
  topics: gateTopics(config.topicPrefix),
  groupId: analyticsGroupPrefix(config.groupPrefix),
  instanceId: config.instanceId,
  settings: {
    graceMs: { minute: config.analyticsMinuteGraceMs, hour: config.analyticsHourGraceMs },
    idleMs: config.analyticsIdleMs,
    maxSkewMs: 60_000,
  },
  tickMs: config.analyticsTickMs,
  logger,
  onCrash: () => process.exit(1),
});

const announce = setInterval(() => {
  if (!service.ready()) return;
  clearInterval(announce);
  process.stdout.write('ready\n');
}, 20);

process.once('SIGTERM', () => {
  void service.stop().then(
    () => bus.close().then(() => process.exit(0)),
    () => process.exit(1),
  );
});
