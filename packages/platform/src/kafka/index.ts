/**
 * The gate's Kafka (`@toolgate/platform/kafka`): the bus, how kafkajs errors become faults, and
 * who a process is to Kafka. kafkajs is imported in this folder alone (scripts/lint/boundaries.js),
 * so the client can be swapped here.
 */
export * from './bus-types.js';
export * from './bus.js';
export * from './kafka-fault.js';
export * from './kafka-security.js';
export * from './kafkajs-log.js';
export * from './record-headers.js';
export * from './record-size.js';
export * from './topic-timestamps.js';
