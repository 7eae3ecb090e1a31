/**
 * The gate's Kafka (`@toolgate/platform/kafka`): the bus, how kafkajs errors become faults, and
 * who a process is to Kafka. This folder is the only place that imports kafkajs (lint rule
 * `no-restricted-imports` in eslint.config.js), so the client can be swapped here alone.
 */
export * from './bus-types.js';
export * from './bus.js';
export * from './kafka-fault.js';
export * from './kafka-security.js';
export * from './kafkajs-log.js';
export * from './record-headers.js';
export * from './record-size.js';
