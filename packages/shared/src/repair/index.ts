/** Repair policy (DESIGN §1, §9): which refusals a model may correct, and how often. */
export * from './check-repair-budget.js';
export * from './plan-repair.js';
export * from './repairable-rungs.js';
