/**
 * kafkajs 2.2.4 ships a request queue that, once a connection has answered one request, re-arms a
 * timer every millisecond for the life of the connection (kafkajs#1556, #1604, #1704; the fix of
 * kafkajs#1667 is unmerged). `patches/kafkajs+2.2.4.patch`, applied by patch-package on install,
 * carries that fix. These tests read the installed module, so they fail if the patch is not applied.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SILENT_LOGGER, type AdapterLogger } from '../adapter-logger.js';

interface QueuedRequest {
  readonly entry: {
    correlationId: number;
    apiKey: number;
    apiName: string;
    apiVersion: number;
    resolve: (response: unknown) => void;
    reject: (error: unknown) => void;
  };
  readonly expectResponse: boolean;
  readonly sendRequest: () => void;
}

interface RequestQueue {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  readonly pending: unknown[];
  push(request: QueuedRequest): void;
  checkPendingRequests(): void;
  destroy(): void;
}

const require = createRequire(import.meta.url);
const RequestQueueClass = require('kafkajs/src/network/requestQueue/index.js') as new (options: {
  maxInFlightRequests: number | null;
  requestTimeout: number;
  enforceRequestTimeout: boolean;
  clientId: string;
  broker: string;
  logger: AdapterLogger;
}) => RequestQueue;

const queues: RequestQueue[] = [];

function queue(): RequestQueue {
  const q = new RequestQueueClass({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: '127.0.0.1:9092',
    logger: SILENT_LOGGER,
  });
  queues.push(q);
  return q;
}

function request(correlationId: number, sent: number[]): QueuedRequest {
  return {
    entry: {
      correlationId,
      apiKey: 18,
      apiName: 'ApiVersions',
      apiVersion: 2,
      resolve: () => {},
      reject: () => {},
    },
    // No response expected: the queue settles the request as soon as it is sent.
    expectResponse: false,
    sendRequest: () => void sent.push(correlationId),
  };
}

afterEach(() => {
  for (const q of queues.splice(0)) q.destroy();
  vi.useRealTimers();
});

describe('kafkajs request queue (patched)', () => {
  it('arms no timer when nothing is pending', () => {
    const q = queue();
    // What every response does (fulfillRequest): before the patch this armed a 1 ms timer that
    // re-armed itself forever.
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
  });

  it('sends a request held back by broker throttling once the throttle ends', () => {
    // The queue's clock and timers are the test's, so the throttle ends when the test says.
    vi.useFakeTimers();
    const q = queue();
    const sent: number[] = [];
    q.throttledUntil = Date.now() + 30;
    q.push(request(1, sent));
    expect(sent).toEqual([]);
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    vi.advanceTimersByTime(29);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([1]);
    // Sent, so nothing is pending and no timer stays armed.
    expect(q.pending).toEqual([]);
    expect(q.throttleCheckTimeoutId).toBeNull();
  });
});
