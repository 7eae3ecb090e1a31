/** The result rung (DESIGN §6): size, output schema, injection scan, and delimiters. */
export * from './check-result.js';
export * from './normalize-for-scan.js';
export * from './scan-for-injection.js';
export * from './wrap-tool-output.js';
