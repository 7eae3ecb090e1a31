/**
 * Renders the rejection-code catalogue as the Markdown page `docs/rejection-codes.md`, so the page
 * and the code cannot drift: `npm run docs:codes` writes it, and a test fails when it is stale.
 */
import { REJECTION_CODES, RUNGS, type CodeSpec, type Rung } from './catalogue.js';

const QUESTIONS: Readonly<Record<Rung, string>> = {
  authentication: 'Who is asking, according to a verified session token (never the model)?',
  representation: 'Can the raw output be decoded, completely, within limits?',
  schema: 'Is it a known tool with exactly the declared arguments of the declared types?',
  semantics: 'Are the values meaningful?',
  resolution: "Do the referenced objects exist under the caller's tenant?",
  authorization: 'May this principal do this to these objects, per current policy?',
  precondition: 'Does the world currently allow it?',
  limits: 'Is a ceiling exceeded?',
  confirmation: 'Did an authorized human approve exactly this effect, in time?',
  idempotency: 'Is this a replay or a conflicting reuse of a key?',
  execution: 'What happened when the tool ran?',
  result: "Is the tool's output safe and within limits to show the model?",
};

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The whole Markdown page. */
export function renderRejectionCodes(): string {
  const sections = RUNGS.map((rung) => {
    const rows = Object.entries(REJECTION_CODES[rung] as Record<string, CodeSpec>).map(
      ([code, spec]) =>
        `| \`${code}\` | ${spec.disposition} | ${cell(spec.publicMessage)} | ${cell(spec.operator)} |`,
    );
    return [
      `## \`${rung}\``,
      '',
      QUESTIONS[rung],
      '',
      '| code | disposition | public message (to the model) | what an operator does |',
      '|---|---|---|---|',
      ...rows,
      '',
    ].join('\n');
  });
  const header = [
    '# Rejection codes',
    '',
    'Every refusal the gate emits is `{stage, code, disposition, publicMessage, internalDetail}`,',
    'where `stage` names the rung of the ladder that refused (the field of observations and audit',
    'events keeps that published name; the services validate, authorize, confirm and execute are',
    'the stages). This page lists every code by rung, in the order the rungs are climbed. The public',
    'message is the default text the model sees (a rung may make it more specific, naming the',
    "argument, never a value or another tenant's identifier); `internalDetail` goes only to the",
    'audit topic.',
    '',
    'Dispositions: `repair` (the model may fix it; representation, schema and semantics only, within',
    'the repair budget), `retry` (ask again later or re-request the completion), `confirm` (waits for',
    'a person), `deny` (final).',
    '',
    'Generated from `packages/shared/src/catalogue.ts` by `npm run docs:codes`; a test fails when this',
    'page and the catalogue differ.',
    '',
  ];
  return `${[...header, ...sections].join('\n').trimEnd()}\n`;
}
