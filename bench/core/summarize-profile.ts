/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and prints where the time went: self time by
 * module (a package under node_modules, a file of the repository, WebAssembly, GC), the functions
 * with the most self time, and the inclusive time of the ladder's rung functions.
 *
 *   npx tsx bench/core/summarize-profile.ts bench/results/CPU.*.cpuprofile
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Functions whose inclusive time is reported: the rungs, their groups and the costly helpers. */
export const RUNG_FUNCTIONS = [
  'evaluate',
  'verify',
  'validateProposal',
  'normalizeProposal',
  'parseCall',
  'checkSchema',
  'checkSemantics',
  'authorizeProposal',
  'authorizeCall',
  'planConfirmation',
  'identityOf',
  'buildCommand',
  'decideIdempotency',
  'planRepair',
  'canonicalize',
  'money',
];

/** Self microseconds per node id. */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  return self;
}

/** Where a frame's code lives: a package, a repository file, or one of V8's pseudo-frames. */
export function moduleOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName.startsWith('(')) return functionName;
    // Code without a URL is either ajv's compiled validators (validate10, validate11, …) or
    // V8's own: builtins and bindings such as writeBuffer and runMicrotasks, and regular expressions.
    return /^validate\d*$/.test(functionName)
      ? '(eval: ajv validators)'
      : '(native: V8 and bindings)';
  }
  if (url.startsWith('wasm://')) return 'cedar (WebAssembly)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1] !== undefined) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  const repo = /\/(packages|examples|bench)\/(.*)$/.exec(url);
  return repo === null ? url : `${repo[1]}/${repo[2]}`;
}

function top(totals: Map<string, number>, sum: number, count: number): string[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => `${((100 * us) / sum).toFixed(1).padStart(6)}%  ${name}`);
}

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

/** Inclusive microseconds of each name in `names`, counting a recursive call once. */
function inclusive(profile: CpuProfile, self: Map<number, number>, names: readonly string[]) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  const walk = (id: number, open: ReadonlySet<string>): number => {
    const node = byId.get(id);
    if (node === undefined) return 0;
    const name = node.callFrame.functionName;
    const counted = names.includes(name) && !open.has(name);
    const inner = counted ? new Set([...open, name]) : open;
    let us = self.get(id) ?? 0;
    for (const child of node.children ?? []) us += walk(child, inner);
    if (counted) add(totals, name, us);
    return us;
  };
  const root = profile.nodes[0];
  if (root !== undefined) walk(root.id, new Set());
  return totals;
}

/** The summary of one profile, as lines of text. */
export function summarize(profile: CpuProfile): string[] {
  const self = selfTimes(profile);
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += us;
    add(byModule, moduleOf(node.callFrame), us);
    const { functionName, lineNumber } = node.callFrame;
    add(
      byFunction,
      `${functionName || '(anonymous)'}  ${moduleOf(node.callFrame)}:${lineNumber + 1}`,
      us,
    );
  }
  const rungs = inclusive(profile, self, RUNG_FUNCTIONS);
  return [
    `busy ${(busy / 1e6).toFixed(2)} s (idle excluded); shares are of busy time`,
    '',
    'self time by module:',
    ...top(byModule, busy, 20),
    '',
    'self time by function:',
    ...top(byFunction, busy, 30),
    '',
    'inclusive time of the ladder functions:',
    ...top(rungs, busy, RUNG_FUNCTIONS.length),
  ];
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: tsx bench/core/summarize-profile.ts <file.cpuprofile>...');
  process.exitCode = 2;
}
for (const file of files) {
  console.log(`== ${file}`);
  console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile).join('\n'));
}
