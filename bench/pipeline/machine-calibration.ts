/**
 * Two facts about the machine that the pipeline's figures grow with, measured before and after a
 * run so runs of different days can be read against each other:
 *
 * - how fast its cores run when all of them are busy, against one busy alone: a fixed CPU loop
 *   timed in one worker thread, then in one worker per core at once. A VM whose host shares its
 *   cores out can run all of them at a fraction of one alone (one machine of this kind, for a while: 0.43);
 * - a round trip of one byte over loopback TCP between two threads, each waiting in its event
 *   loop: the wake-ups, system calls and network stack every hop of both pipelines pays many times
 *   a message. One such machine ran both pipelines three to ten times slower than another with
 *   its cores at full speed.
 *
 * Neither moves the ratios between the systems, which are measured side by side.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';
import { median } from '../core/stats.js';

/** The loop every worker runs: `workerData` steps of integer arithmetic, then its own time. */
const LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
let x = 0;
const started = performance.now();
for (let i = 0; i < workerData; i++) x = (x + i * 7) % 1000003;
parentPort.postMessage([performance.now() - started, x]);
`;

/** An echo server on a loopback port, in a thread of its own; it posts the port once listening. */
const ECHO = `
const { parentPort } = require('node:worker_threads');
const net = require('node:net');
const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  socket.on('data', (bytes) => socket.write(bytes));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

/** What {@link calibrateMachine} measured; times are medians. */
export interface MachineCalibration {
  readonly cores: number;
  /** One worker's loop with the other cores idle, in ms. */
  readonly oneBusyMs: number;
  /** Each worker's loop with one worker per core running, in ms. */
  readonly allBusyMs: number;
  /** `oneBusyMs / allBusyMs`: 1 when all cores busy run as fast as one; lower when they do not. */
  readonly speedAllBusy: number;
  /** One byte there and back over loopback TCP between two threads, in µs. */
  readonly loopbackRoundTripUs: number;
}

/** The speed of a core when all are busy, against one alone (see {@link MachineCalibration}). */
export function speedAllBusy(oneBusyMs: number, allBusyMs: number): number {
  if (!(oneBusyMs > 0 && allBusyMs > 0)) throw new RangeError('loop times must be positive');
  return Number((oneBusyMs / allBusyMs).toFixed(2));
}

/** Runs the loop in `workers` threads at once; resolves with each one's time in ms. */
async function loopIn(workers: number, steps: number): Promise<number[]> {
  return Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(LOOP, { eval: true, workerData: steps });
          worker.once('message', ([ms]: [number, number]) => {
            resolve(ms);
            void worker.terminate();
          });
          worker.once('error', reject);
        }),
    ),
  );
}

/** The median of `trips` one-byte round trips to an echo thread, after `trips / 10` unmeasured. */
async function loopbackRoundTrip(trips: number): Promise<number> {
  const echo = new Worker(ECHO, { eval: true });
  let socket: Socket | undefined;
  try {
    const [port] = (await Promise.race([
      once(echo, 'message'),
      once(echo, 'error').then(([error]) => Promise.reject(error as Error)),
    ])) as [number];
    socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    await once(socket, 'connect');
    const times: number[] = [];
    const byte = Buffer.from([1]);
    for (let trip = 0; trip < trips + Math.ceil(trips / 10); trip += 1) {
      const started = performance.now();
      const answered = once(socket, 'data');
      socket.write(byte);
      await answered;
      if (trip >= Math.ceil(trips / 10)) times.push((performance.now() - started) * 1000);
    }
    return median(times);
  } finally {
    socket?.destroy();
    await echo.terminate();
  }
}

/** Options of {@link calibrateMachine}; the defaults take about a second on a quiet machine. */
export interface CalibrationOptions {
  /** Rounds of the loop alone and on every core; default 3. */
  readonly rounds?: number;
  /** Steps of each loop; default 40 million (about 0.2 s on a slow machine of this kind). */
  readonly steps?: number;
  /** Workers on every core at once; default the machine's cores. */
  readonly cores?: number;
  /** Loopback round trips measured; default 2000. */
  readonly trips?: number;
}

/** Times the loop alone and on every core at once (alternating), then the loopback round trip. */
export async function calibrateMachine(
  options: CalibrationOptions = {},
): Promise<MachineCalibration> {
  const cores = options.cores ?? cpus().length;
  const steps = options.steps ?? 40_000_000;
  const one: number[] = [];
  const all: number[] = [];
  for (let round = 0; round < (options.rounds ?? 3); round += 1) {
    one.push(...(await loopIn(1, steps)));
    all.push(median(await loopIn(cores, steps)));
  }
  const oneBusyMs = Number(median(one).toFixed(1));
  const allBusyMs = Number(median(all).toFixed(1));
  return {
    cores,
    oneBusyMs,
    allBusyMs,
    speedAllBusy: speedAllBusy(oneBusyMs, allBusyMs),
    loopbackRoundTripUs: Number((await loopbackRoundTrip(options.trips ?? 2000)).toFixed(1)),
  };
}

/** One line for the progress log. */
export function formatCalibration(c: MachineCalibration): string {
  return `all ${c.cores} cores busy: ${c.speedAllBusy.toFixed(2)} of one core's speed (a loop took ${c.oneBusyMs} ms alone, ${c.allBusyMs} ms on every core at once); loopback round trip ${c.loopbackRoundTripUs} µs`;
}
