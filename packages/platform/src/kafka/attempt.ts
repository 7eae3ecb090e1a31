import { kafkaFault } from './kafka-fault.js';

/** Runs `work`, turning whatever kafkajs throws into a Fault that names `action`. */
export async function attempt<T>(action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw kafkaFault(error, action);
  }
}
