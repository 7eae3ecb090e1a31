/**
 * Loading Cedar policies: every source parsed (and validated against a schema when one is given),
 * every policy named by file and line, the whole set hashed into the version recorded with every
 * decision, and pre-parsed once so that a decision does not parse policy text again.
 */
import { createHash } from 'node:crypto';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import canonicalize from 'canonicalize';
import { ConfigError } from '../auth/config-error.js';
import { describeCedarErrors, lineOfIndex, splitStatements } from './cedar-source.js';
import type { Reads } from './cedar-entities.js';
import { observesWholeArguments, referencedAttributes } from './referenced-attributes.js';

/** One policy or schema file as the shell read it. */
export interface PolicySource {
  /** File name, unique in the set; a name ending in {@link SCHEMA_SUFFIX} marks the schema. */
  readonly name: string;
  readonly text: string;
}

/** A source whose name ends so is a Cedar schema (at most one per set), not a policy file. */
export const SCHEMA_SUFFIX = '.cedarschema';

/** A loaded, immutable policy set. Only objects returned by {@link loadPolicySet} can decide. */
export interface PolicySet {
  /**
   * sha256 hex over the RFC 8785 JSON of `[[name, text], …]` for every source (schema included),
   * sorted by name — recorded with every decision.
   */
  readonly version: string;
  /** Every policy id: its `@id("…")` annotation, else `file:line`. Decisions name these. */
  readonly policyIds: readonly string[];
  /** Validator warnings (e.g. a policy that can never apply), for the shell to log at load. */
  readonly warnings: readonly string[];
}

/**
 * What the engine needs about a loaded set: its id, and what its policies can read (other object
 * attributes and arguments are not sent to Cedar).
 */
export interface Engine extends Reads {
  /** The id under which Cedar holds the pre-parsed set. */
  readonly id: string;
}

const engines = new WeakMap<PolicySet, Engine>();

/**
 * The engine of a set made by {@link loadPolicySet}; undefined for any other object, which
 * therefore cannot allow anything.
 */
export function engineOf(policies: PolicySet): Engine | undefined {
  return engines.get(policies);
}

/**
 * Parses every source; throws a {@link ConfigError} naming file, line and column for every parse
 * or validation error, for duplicate names or policy ids, for templates (nothing would link them)
 * and for a set without any policy. When a `*.cedarschema` source is present, every
 * policy is validated against it (strict mode) at load; requests are not validated against it.
 */
export function loadPolicySet(sources: readonly PolicySource[]): PolicySet {
  const problems = sourceProblems(sources);
  const schema = sources.find((s) => s.name.endsWith(SCHEMA_SUFFIX));
  const files = sources.filter((s) => !s.name.endsWith(SCHEMA_SUFFIX));
  if (schema !== undefined) problems.push(...schemaProblems(schema));
  const parsed = files.map((file) => parseFile(file));
  problems.push(...parsed.flatMap((p) => p.problems));
  const policies = parsed.flatMap((p) => p.policies);
  problems.push(...duplicateIdProblems(policies));
  if (problems.length === 0 && policies.length === 0) problems.push('no policies were given');
  const validation =
    problems.length === 0 && schema !== undefined ? validateFiles(files, schema) : undefined;
  problems.push(...(validation?.problems ?? []));
  if (problems.length > 0) throw new ConfigError('policy set', problems);
  return preparse(sources, policies, validation?.warnings ?? []);
}

interface ParsedPolicy {
  readonly id: string;
  readonly text: string;
  readonly attributes: ReadonlySet<string>;
  readonly wholeArguments: boolean;
}

function preparse(
  sources: readonly PolicySource[],
  policies: readonly ParsedPolicy[],
  warnings: readonly string[],
): PolicySet {
  const version = policySetVersion(sources);
  const engineId = `toolgate:${version}`;
  const staticPolicies = Object.fromEntries(policies.map((p) => [p.id, p.text]));
  const answer = cedar.preparsePolicySet(engineId, { staticPolicies });
  if (answer.type === 'failure') {
    throw new ConfigError(
      'policy set',
      answer.errors.map((e) => `combined set: ${e.message}`),
    );
  }
  const set: PolicySet = Object.freeze({
    version,
    policyIds: Object.freeze(policies.map((p) => p.id)),
    warnings: Object.freeze([...warnings]),
  });
  const attributes = new Set(policies.flatMap((p) => [...p.attributes]));
  const wholeArguments = policies.some((p) => p.wholeArguments);
  engines.set(set, { id: engineId, attributes, wholeArguments });
  return set;
}

/** sha256 hex over the RFC 8785 JSON of `[[name, text], …]` sorted by name (code-unit order). */
export function policySetVersion(sources: readonly PolicySource[]): string {
  const pairs = sources.map((s) => [s.name, s.text]).sort(([a], [b]) => compare(a ?? '', b ?? ''));
  return createHash('sha256')
    .update(canonicalize(pairs) ?? '')
    .digest('hex');
}

function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function sourceProblems(sources: readonly PolicySource[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { name } of sources) {
    if (name === '') problems.push('a source has an empty name');
    if (seen.has(name)) problems.push(`source name ${name} is given twice`);
    seen.add(name);
  }
  const schemas = sources.filter((s) => s.name.endsWith(SCHEMA_SUFFIX)).map((s) => s.name);
  if (schemas.length > 1) problems.push(`more than one schema: ${schemas.join(', ')}`);
  return problems;
}

function schemaProblems(schema: PolicySource): string[] {
  const answer = cedar.checkParseSchema(schema.text);
  return answer.type === 'failure'
    ? describeCedarErrors(schema.name, schema.text, answer.errors)
    : [];
}

function parseFile(file: PolicySource): { policies: ParsedPolicy[]; problems: string[] } {
  const parsed = cedar.checkParsePolicySet({ staticPolicies: file.text });
  if (parsed.type === 'failure') {
    return { policies: [], problems: describeCedarErrors(file.name, file.text, parsed.errors) };
  }
  // Templates fail the parse above ("static policy set includes a template"): nothing links them.
  const parts = cedar.policySetTextToParts(file.text);
  const statements = splitStatements(file.text);
  if (parts.type === 'failure' || parts.policies.length !== statements.length) {
    return { policies: [], problems: [`${file.name}: could not split the file into policies`] };
  }
  const policies: ParsedPolicy[] = [];
  for (const { text, index } of statements) {
    const json = cedar.policyToJson(text);
    if (json.type === 'failure') {
      return { policies: [], problems: [`${file.name}: could not split the file into policies`] };
    }
    const line = lineOfIndex(file.text, index).line;
    const id = json.json.annotations?.['id'] ?? `${file.name}:${line}`;
    policies.push({
      id,
      text,
      attributes: referencedAttributes(json.json),
      wholeArguments: observesWholeArguments(json.json),
    });
  }
  return { policies, problems: [] };
}

function duplicateIdProblems(policies: readonly ParsedPolicy[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const { id } of policies) {
    if (seen.has(id)) problems.push(`policy id ${id} is used twice`);
    seen.add(id);
  }
  return problems;
}

function validateFiles(
  files: readonly PolicySource[],
  schema: PolicySource,
): { problems: string[]; warnings: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const file of files) {
    const answer = cedar.validate({
      schema: schema.text,
      policies: { staticPolicies: file.text },
      validationSettings: { mode: 'strict' },
    });
    if (answer.type === 'failure') {
      problems.push(...describeCedarErrors(file.name, file.text, answer.errors));
      continue;
    }
    problems.push(
      ...describeCedarErrors(
        file.name,
        file.text,
        answer.validationErrors.map((e) => e.error),
      ),
    );
    warnings.push(
      ...describeCedarErrors(
        file.name,
        file.text,
        answer.validationWarnings.map((e) => e.error),
      ),
    );
  }
  return { problems, warnings };
}
