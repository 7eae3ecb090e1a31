/** Model Context Protocol `tools/call` requests as proposals. */
import type { Proposal } from '@toolgate/shared';
import { proposalsOf, recordOf, type ProposalIds } from './proposal-ids.js';

/**
 * The `mcp` proposal of one JSON-RPC `tools/call` request, as a client would send it to an MCP
 * server (`{jsonrpc: "2.0", id, method: "tools/call", params: {name, arguments}}`), unchanged;
 * its JSON-RPC `id` becomes the call id. MCP has no finish word, so `finishReason` is null. The
 * gate checks the request itself (version, method, id, name).
 *
 * @throws UnrecognizedResponseError when `request` is not an object.
 */
export function fromMcp(request: unknown, ids: ProposalIds): Proposal[] {
  return proposalsOf('mcp', null, [recordOf('mcp', request, 'the request')], ids);
}
