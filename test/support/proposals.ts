/**
 * Builders of proposals in each of the five formats (DESIGN §9). They know formats, not tools:
 * they live beside the example because its demo and docs build proposals too, and the tests take
 * them from here, so that moving them changes one line.
 */
export {
  actionJson,
  anthropic,
  mcp,
  openaiChat,
  openaiResponses,
  type ProposalIds,
} from '../../examples/billing/fixtures/proposals.js';
