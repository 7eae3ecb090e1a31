#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so that deployments can write their configuration in
// TypeScript and a fresh clone needs no build step.
import { setFlagsFromString } from 'node:v8';

// Before any code is optimized: Node 20's V8 can abort the process when it inlines a JS-to-Wasm
// call (Cedar) and later deoptimizes it (docs/decisions/0003-v8-wasm-inlining.md).
setFlagsFromString('--no-turbo-inline-js-wasm-calls');

const { register } = await import('tsx/esm/api');
register();
await import('../src/main.ts');
