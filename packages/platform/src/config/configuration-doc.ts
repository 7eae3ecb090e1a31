/**
 * The Markdown page `docs/configuration.md`, rendered from the variable tables; a test keeps the
 * page and the tables in sync (`npx tsx scripts/write-configuration-doc.ts` writes it).
 */
import { CONFIG_VARIABLES, DEPLOYMENT_VARIABLES, OTHER_VARIABLES } from './variables.js';
import { ENV_PREFIX, type VariableSpec, type VariableTable } from './variable-spec.js';

const cell = (text: string) => text.replaceAll('|', '\\|');

function defaultText(spec: VariableSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.required === true) return '**required**';
  if (spec.default === undefined) return '—';
  if (typeof spec.default === 'function') return 'computed';
  const text = Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default);
  return text === '' ? '(empty)' : `\`${text}\``;
}

/** The Markdown page `docs/configuration.md`. */
export function renderConfigurationDoc(): string {
  const rows = Object.entries(CONFIG_VARIABLES as VariableTable).map(
    ([name, spec]) =>
      `| \`${ENV_PREFIX}${name}\` | ${spec.kind} | ${cell(defaultText(spec))} | ${cell(spec.description)} |`,
  );
  const described = (table: Readonly<Record<string, string>>) =>
    Object.entries(table).map(([name, text]) => `| \`${ENV_PREFIX}${name}\` | ${cell(text)} |`);
  return [
    '# Configuration',
    '',
    'Every Toolgate process reads these environment variables once, at start (`loadConfig` in',
    '`packages/platform/src/config.ts`). Unset or empty takes the default; integers are checked as',
    'integers; a list is comma-separated. Bad configuration stops the process with one message that',
    'names every problem. Unknown `TOOLGATE_*` variables are reported as a warning at start.',
    '',
    'Generated from the code: `npx tsx scripts/write-configuration-doc.ts`.',
    '',
    '| variable | kind | default | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    '## Read by the deployment file',
    '',
    '| variable | meaning |',
    '|---|---|',
    ...described(DEPLOYMENT_VARIABLES),
    '',
    '## Read by other Toolgate programs',
    '',
    '| variable | meaning |',
    '|---|---|',
    ...described(OTHER_VARIABLES),
    '',
  ].join('\n');
}
