/**
 * What the stage loop takes from the Kafka adapter, in one place: the bus's types, its fault
 * codes, and the size of a record as a produce request counts it. The loop's other modules import
 * these from here, so that moving the adapter changes this file alone.
 */
export type {
  Assignment,
  Bus,
  BusBatch,
  BusConsumer,
  BusConsumerOptions,
  BusMessage,
  BusProducer,
  BusProducerOptions,
  OutRecord,
  PartitionOffset,
} from '../kafka/index.js';
export { BUS_FAULTS, membershipLost } from '../kafka/index.js';
export { MAX_REQUEST_RECORD_BYTES, recordBytes } from '../kafka/index.js';
