#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so that deployments can write their configuration in
// TypeScript and a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
