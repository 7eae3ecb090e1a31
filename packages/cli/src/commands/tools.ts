/**
 * `toolgate tools export`: the deployment's tool list in a provider's shape, for an agent to hand
 * to its model; with `--as <token>`, only the tools that principal may call per the policies.
 */
import type { Writable } from 'node:stream';
import {
  createToolRegistry,
  exportTools,
  loadPolicySet,
  mayCallTool,
  resolveCeilings,
  TOOL_LIST_FORMATS,
  type Deployment,
  type Tool,
  type ToolListFormat,
} from '@toolgate/shared';
import { CliError, EXIT } from '../cli-error.js';
import { optionalString, requiredString, type Command } from '../command.js';
import { gateOf, loadDeployment } from '../load-deployment.js';

/** `toolgate tools export --format openai|anthropic|mcp [--as <token>] [--config <file>]`. */
export const toolsCommand: Command = {
  name: 'tools',
  summary: 'Export the tool list for a model (OpenAI, Anthropic or MCP shape) as JSON.',
  usage: 'toolgate tools export --format openai|anthropic|mcp [--as <token>] [--config <file>]',
  details: [
    'Prints a JSON array of tool definitions with exactly the input schemas the gate enforces.',
    "With --as, the session token is verified with the deployment's session keys and only the",
    'tools that principal may call per the Cedar policies are listed (a call is still decided on',
    'its objects). A refused token exits 4 and prints nothing on stdout.',
  ],
  options: {
    format: { type: 'string', description: 'openai, anthropic or mcp (required)' },
    as: { type: 'string', description: 'list only the tools this session token may call' },
    config: { type: 'string', description: 'the deployment file (default TOOLGATE_CONFIG)' },
  },
  async run({ values, positionals, io }) {
    if (positionals.length !== 1 || positionals[0] !== 'export')
      throw new CliError('the only subcommand is: tools export', EXIT.usage);
    const format = formatOf(requiredString(values, 'format'));
    const file = optionalString(values, 'config') ?? io.env['TOOLGATE_CONFIG'];
    if (file === undefined)
      throw new CliError('--config (or TOOLGATE_CONFIG) is required', EXIT.usage);
    const deployment = await loadDeployment(file);
    const registry = createToolRegistry(
      deployment.tools,
      resolveCeilings(deployment.ceilings ?? {}),
    );
    const token = optionalString(values, 'as');
    const mayCall =
      token === undefined ? undefined : await callableBy(token, deployment, io.stderr);
    io.stdout.write(`${JSON.stringify(exportTools(registry, format, mayCall), null, 2)}\n`);
    return 0;
  },
};

function formatOf(text: string): ToolListFormat {
  if ((TOOL_LIST_FORMATS as readonly string[]).includes(text)) return text as ToolListFormat;
  throw new CliError(
    `--format ${JSON.stringify(text)}: one of ${TOOL_LIST_FORMATS.join(', ')}`,
    EXIT.usage,
  );
}

/** "May the holder of `token` call this tool at all?", or a denied error for a refused token. */
async function callableBy(
  token: string,
  deployment: Deployment,
  stderr: Writable,
): Promise<(tool: Tool) => boolean> {
  const verified = await gateOf(deployment, stderr).verifier.verify(token, new Date());
  if (!verified.ok) {
    throw new CliError(
      `--as: session refused (${verified.code}): ${verified.publicMessage}`,
      EXIT.denied,
    );
  }
  const policies = loadPolicySet(deployment.policies);
  const principal = verified.value;
  return (tool) =>
    mayCallTool(principal, { name: tool.name, sideEffect: tool.spec.sideEffect }, policies);
}
