/**
 * The demo's own Kafka and registry clients, each as a principal of the stack: the bus of any
 * principal (its SCRAM identity from its stack environment), a registry client that only looks
 * schemas up, and the stack's admin's Redis URL.
 */
import {
  createBus,
  createCodec,
  kafkaIdentityFromEnv,
  kafkaSecurityOf,
  SILENT_LOGGER,
  type Bus,
  type Codec,
} from '@toolgate/platform';
import { STACK_ADMIN } from '../../../infra/stack-principals.js';
import type { DemoSettings } from './demo-settings.js';

/** A bus connected as `principal`, with client id `toolgate-demo-<what>`. */
export function busAs(settings: DemoSettings, principal: string, what: string): Bus {
  return createBus({
    brokers: [...settings.config.kafkaBrokers],
    clientId: `toolgate-demo-${what}`,
    logger: SILENT_LOGGER,
    security: kafkaSecurityOf(kafkaIdentityFromEnv(settings.envOf(principal))),
    retries: 2,
  });
}

/**
 * A registry client of the demo. It registers nothing (only the gate does): it encodes under
 * the schemas the gate registered, by `adopt`, and decodes what it reads.
 */
export function demoCodec(settings: DemoSettings): Codec {
  return createCodec({
    registryUrl: settings.config.schemaRegistryUrl,
    logger: SILENT_LOGGER,
    compatibility: 'NONE',
  });
}

/** The Redis URL of the stack's admin (its password included). */
export function adminRedisUrl(settings: DemoSettings): string {
  const url = settings.envOf(STACK_ADMIN)['TOOLGATE_REDIS_URL'];
  if (url === undefined) throw new Error('the stack gives its admin no Redis user');
  return url;
}
