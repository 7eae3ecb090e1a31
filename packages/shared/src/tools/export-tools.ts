/**
 * Tool lists for models, in each provider's own shape, built from the loaded registry so that the
 * model is shown exactly the schemas the gate enforces.
 */
import type { JsonSchema } from '../tool-spec.js';
import type { Tool, ToolRegistry } from './create-tool-registry.js';
import { isOpenAiStrictSchema } from './openai-strict.js';

/** The tool-list shapes `exportTools` writes. */
export const TOOL_LIST_FORMATS = ['openai', 'anthropic', 'mcp'] as const;

/**
 * `openai`: Chat Completions `tools` items; `anthropic`: Messages API `tools` items; `mcp`: items of
 * a `tools/list` result.
 */
export type ToolListFormat = (typeof TOOL_LIST_FORMATS)[number];

const RENDERERS: Readonly<Record<ToolListFormat, (tool: Tool) => unknown>> = {
  openai: (tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.spec.description,
      parameters: copyOf(tool.spec.input),
      // Strict only when the schema already fits OpenAI's strict subset; see openai-strict.ts.
      strict: isOpenAiStrictSchema(tool.spec.input),
    },
  }),
  anthropic: (tool) => ({
    name: tool.name,
    description: tool.spec.description,
    input_schema: copyOf(tool.spec.input),
  }),
  mcp: (tool) => ({
    name: tool.name,
    description: tool.spec.description,
    inputSchema: copyOf(tool.spec.input),
    annotations: {
      readOnlyHint: tool.spec.sideEffect === 'read',
      destructiveHint: tool.spec.sideEffect === 'destructive',
    },
  }),
};

/**
 * The tools `mayCall` allows (all by default; the lead passes "may this principal call it" from
 * authorization), in definition order, in `format`. Schemas are fresh copies: a client library
 * that annotates them cannot change what the gate compiled. OpenAI items carry `strict: true` only
 * when the input schema fits strict mode unchanged (every property required, every object closed,
 * only supported keywords); otherwise `strict: false`, and the gate still enforces the full schema.
 * MCP items carry `readOnlyHint`/`destructiveHint` from the tool's side-effect class.
 */
export function exportTools(
  registry: ToolRegistry,
  format: ToolListFormat,
  mayCall: (tool: Tool) => boolean = () => true,
): unknown[] {
  const render = RENDERERS[format];
  return registry
    .list()
    .filter((tool) => mayCall(tool))
    .map((tool) => render(tool));
}

function copyOf(schema: JsonSchema): JsonSchema {
  return structuredClone(schema);
}
