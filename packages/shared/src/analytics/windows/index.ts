export * from './windowed-event.js';
export * from './window-counts.js';
export * from './partition-windows.js';
export * from './window-records.js';
export * from './window-state.js';
