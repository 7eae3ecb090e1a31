// Preloaded into a `toolgate` process by cli-exit.test.ts: a handle that never closes on its own,
// as a client left reconnecting to a dead node would be.
setInterval(() => undefined, 1_000);
