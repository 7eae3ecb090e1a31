/**
 * `@toolgate/tool-worker`: the tool owner's side of Toolgate. Write one handler per tool, start a
 * worker, and every command the gate issues runs at most once per idempotency key (a Redis ledger
 * replays the recorded result to redeliveries), within its deadline, with its ToolResult
 * published to the gate.
 */
export * from './check-command.js';
export * from './handle-command.js';
export * from './lease-keeper.js';
export * from './run-with-deadline.js';
export * from './start-tool-worker.js';
export * from './tool-handler.js';
export * from './tool-results.js';
export * from './worker-config.js';
export * from './worker-errors.js';
export * from './worker-options.js';
