/**
 * The loop's one transactional producer (`<groupId>.<instanceId>`), and its replacement after a
 * failed transaction: kafkajs cannot recover a producer whose commit or abort failed half-way, and
 * a new producer with the same id bumps the epoch, which also settles whatever the old one left
 * open. A fenced producer (a newer instance took the id) is not replaced: the loop crashes, with a
 * fault that says who fences whom, since two processes given one TOOLGATE_INSTANCE_ID would
 * otherwise look like a crash loop with no cause.
 */
import type { AdapterLogger } from '../adapter-logger.js';
import { Fault } from '../fault.js';
import { BUS_FAULTS, type Bus, type BusProducer, type BusProducerOptions } from './bus-port.js';
import { errorFields } from './loop-support.js';
import type { StageLoopMetrics } from './types.js';

/** What {@link ProducerRenewal} needs. */
export interface ProducerRenewalOptions {
  readonly bus: Bus;
  readonly producerOptions: BusProducerOptions;
  readonly logger: AdapterLogger;
  readonly metrics: Pick<StageLoopMetrics, 'fault'>;
  /** True once the loop began to stop: no new producer then. */
  isClosing(): boolean;
  /** The producer was fenced: the loop must stop on its own. */
  onFenced(error: Fault): void;
}

/** Holds the current producer and replaces it when a transaction failed. */
export class ProducerRenewal {
  private producer: BusProducer | undefined;

  constructor(private readonly o: ProducerRenewalOptions) {}

  /** The connected producer, connecting a new one if there is none. */
  current(): Promise<BusProducer> {
    return this.producer === undefined ? this.renew() : Promise.resolve(this.producer);
  }

  /**
   * Drops the current producer and connects a new one with the same transactional id (which
   * fences the old one). Throws a retriable Fault once the loop is stopping.
   */
  async renew(): Promise<BusProducer> {
    if (this.o.isClosing()) {
      throw new Fault(BUS_FAULTS.unavailable, 'the stage loop is stopping');
    }
    const old = this.producer;
    this.producer = undefined;
    if (old !== undefined) await old.disconnect().catch(() => undefined);
    const fresh = this.o.bus.producer(this.o.producerOptions);
    await fresh.connect();
    this.producer = fresh;
    return fresh;
  }

  /**
   * After a failed transaction, which ran for `seconds`: counts the fault, then crashes (fenced)
   * or replaces the producer.
   */
  async afterFailedTransaction(error: unknown, seconds?: number): Promise<void> {
    const fenced = error instanceof Fault && error.code === BUS_FAULTS.fenced;
    this.o.metrics.fault?.(error instanceof Fault ? error.code : BUS_FAULTS.error);
    if (fenced) {
      this.o.onFenced(supersededBy(this.o.producerOptions.transactionalId, error, seconds));
      return;
    }
    this.o.logger.warn(
      errorFields(error),
      'transaction failed; replacing the producer and rewinding',
    );
    await this.renew().catch((renewError: unknown) => {
      this.o.logger.warn(errorFields(renewError), 'could not reconnect the producer yet');
    });
  }

  /** Disconnects the current producer, if any. */
  disconnect(): Promise<void> {
    return this.producer?.disconnect() ?? Promise.resolve();
  }
}

/**
 * The fault a fenced loop stops with. The broker fences a producer for one of two reasons: a
 * process with the same group and instance id took its transactional id over, or the process
 * stalled (paused, swapped out) past its transaction timeout and the broker aborted the
 * transaction it held open. Its error cannot tell the two apart, so the fault names both.
 */
function supersededBy(
  transactionalId: string | undefined,
  fenced: Fault,
  seconds: number | undefined,
): Fault {
  // How long the failed transaction ran tells the two apart for whoever reads the log: one that
  // ran past the timeout was aborted by the broker.
  const ran = seconds === undefined ? '' : ` after ${seconds.toFixed(1)} s in a transaction`;
  return new Fault(
    BUS_FAULTS.fenced,
    `the transactional id "${transactionalId ?? ''}" was fenced${ran} (${fenced.message}): ` +
      'a newer process with the same TOOLGATE_INSTANCE_ID started, or this process stalled past ' +
      'its transaction timeout and the broker aborted its open transaction. After a restart of ' +
      'this instance or a stall that is expected; if two processes with this id are meant to run, ' +
      'give each its own TOOLGATE_INSTANCE_ID, or they will go on fencing each other in turn',
    { cause: fenced },
  );
}
