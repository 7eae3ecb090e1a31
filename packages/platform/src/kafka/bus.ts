/**
 * The Kafka bus: thin, typed wrappers for what the gate does with Kafka (create its topics,
 * produce in transactions, consume batches with offsets that only a transaction commits),
 * kafkajs's own log routed to the gate's logger at warn and above, and every kafkajs error mapped
 * to a Fault (see `kafkaFault`). The rest of this folder holds the parts.
 */
import kafkajs, { type KafkaConfig } from 'kafkajs';
import { aclAdmin } from './acl-admin.js';
import { attempt } from './attempt.js';
import type { Bus, BusOptions } from './bus-types.js';
import { newConsumer, wrapConsumer } from './consumer.js';
import type { KafkaSecurity } from './kafka-security.js';
import { logCreatorFor } from './kafkajs-log.js';
import { newProducer, wrapProducer } from './producer.js';
import { lazyAdmin, topicAdmin } from './topic-admin.js';

const { Kafka: KafkaClient, logLevel } = kafkajs;

/** kafkajs's `sasl` and `ssl` options for `security`. */
function kafkajsSecurity(security: KafkaSecurity | undefined): Partial<KafkaConfig> {
  if (security === undefined) return {};
  const { sasl, tls } = security;
  return {
    ...(sasl === undefined
      ? {}
      : {
          sasl: {
            mechanism: sasl.mechanism.toLowerCase() as 'plain',
            username: sasl.username,
            password: sasl.password,
          },
        }),
    ...(tls === undefined
      ? {}
      : {
          ssl:
            tls.ca === undefined && tls.cert === undefined
              ? true
              : {
                  ...(tls.ca === undefined ? {} : { ca: [tls.ca] }),
                  ...(tls.cert === undefined ? {} : { cert: tls.cert }),
                  ...(tls.key === undefined ? {} : { key: tls.key }),
                },
        }),
  };
}

/** Connects nothing yet: returns the bus; connections open when first used. */
export function createBus(options: BusOptions): Bus {
  const kafka = new KafkaClient({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: { retries: options.retries ?? 5, initialRetryTime: options.initialRetryTimeMs ?? 300 },
    logLevel: logLevel.WARN,
    logCreator: logCreatorFor(options.logger),
    ...kafkajsSecurity(options.security),
  });
  const admin = lazyAdmin(kafka);
  return {
    ...topicAdmin(admin, options),
    ...aclAdmin(admin),
    producer: (producerOptions = {}) =>
      wrapProducer(
        newProducer(kafka, producerOptions),
        producerOptions.transactionalId !== undefined,
      ),
    consumer: (consumerOptions) =>
      wrapConsumer(newConsumer(kafka, consumerOptions), consumerOptions),
    close: () => attempt('close the admin client', () => admin.close()),
  };
}
