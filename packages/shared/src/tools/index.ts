/** Tool definitions, the schema and semantics rungs, and tool lists for models. */
export * from './argument-problems.js';
export * from './check-schema.js';
export * from './check-semantics.js';
export * from './confirmation-rule.js';
export * from './create-tool-registry.js';
export * from './create-validator.js';
export * from './define-tool.js';
export * from './export-tools.js';
export * from './find-schema-problems.js';
export * from './identity-fields.js';
export * from './openai-strict.js';
export * from './side-effect-defaults.js';
export * from './side-effect-defaults-doc.js';
export * from './tool-definition-error.js';
export * from './tool-helpers.js';
