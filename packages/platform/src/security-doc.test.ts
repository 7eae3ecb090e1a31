import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  aclTable,
  agentPrincipal,
  exampleAclScope,
  GATE_STAGE_NAMES,
  stagePrincipal,
  type AclRow,
} from './acls.js';
import { renderSecurityDoc } from './security-doc.js';
import { COMMAND_TOPIC_PREFIX, EXAMPLE_TENANTS, TOPIC_NAMES } from './topics.js';

const docPath = new URL('../../../docs/security.md', import.meta.url);

/**
 * The registry's rows, as scripts/write-security-doc.ts renders them. They belong to the local
 * stack (infra/), which builds on this package: imported by a path the compiler does not follow,
 * so this package does not depend on infra/.
 */
async function registryRows(): Promise<readonly AclRow[]> {
  const source = '../../../infra/stack-principals.js';
  const infra = (await import(source)) as { REGISTRY_BINDINGS: readonly AclRow[] };
  return infra.REGISTRY_BINDINGS;
}

const STAGE_PRINCIPALS = new Set(GATE_STAGE_NAMES.map(stagePrincipal));
const INTERNAL = new Set<string>([
  TOPIC_NAMES.validated,
  TOPIC_NAMES.authorized,
  TOPIC_NAMES.cleared,
]);

/** Every example table: without prefixes, and with the prefixes a shared cluster would use. */
const TABLES = [aclTable(exampleAclScope()), aclTable(exampleAclScope('acme-prod.', 'prod.'))];

/** Principals allowed `operation` on topics whose name (after the prefix) `matches`. */
function principalsWith(
  rows: readonly AclRow[],
  operation: AclRow['operation'],
  matches: (name: string) => boolean,
): Set<string> {
  const topic = (r: AclRow) => r.resourceName.replace(/^acme-prod\./, '');
  return new Set(
    rows
      .filter((r) => r.resourceType === 'TOPIC' && r.operation === operation && matches(topic(r)))
      .map((r) => r.principal),
  );
}

describe('docs/security.md', () => {
  it('matches the ACL tables (run `npx tsx scripts/write-security-doc.ts`)', async () => {
    const page = renderSecurityDoc({
      rows: aclTable(exampleAclScope()),
      infraRows: await registryRows(),
    });
    expect(readFileSync(docPath, 'utf8')).toBe(page);
  });

  it('is laid out as Prettier would, so formatting the repository leaves it as generated', async () => {
    const prettier = await import('prettier');
    const page = readFileSync(docPath, 'utf8');
    const options = (await prettier.resolveConfig(docPath)) ?? {};
    expect(await prettier.format(page, { ...options, parser: 'markdown' })).toBe(page);
  });
});

describe('renderSecurityDoc', () => {
  const infraRow: AclRow = {
    principal: 'toolgate-registry',
    resourceType: 'TOPIC',
    resourceName: 'kafkasql-journal',
    patternType: 'LITERAL',
    operation: 'ALL',
    why: 'schemas',
  };
  const page = renderSecurityDoc({ rows: aclTable(exampleAclScope()), infraRows: [infraRow] });

  it('gives every principal one table with each of its rows', () => {
    for (const row of aclTable(exampleAclScope())) {
      const section = page.split(`### \`${row.principal}\`\n`)[1]?.split('\n#')[0] ?? '';
      const pattern = row.patternType.toLowerCase();
      expect(section, `${row.principal} ${row.resourceName}`).toMatch(
        new RegExp(
          `\\| \`${row.resourceName.replaceAll('.', '\\.')}\` +\\| ${pattern} +\\| ${row.operation} +\\|`,
        ),
      );
    }
  });

  it('shows infrastructure apart from the gate’s principals', () => {
    const infra = page.split('### Local stack infrastructure')[1] ?? '';
    expect(infra).toContain('#### `toolgate-registry`');
    expect(infra).toContain('| topic    | `kafkasql-journal` | literal | ALL       | schemas |');
    expect(page.split('### Local stack infrastructure')[0]).not.toContain('kafkasql-journal');
  });

  it('states how long the topics that carry session tokens keep them', () => {
    expect(page).toMatch(/`toolgate\.approvals`, which\s+keep records \d+ (h|days|min)\s/);
  });
});

describe('the ACL table the page documents', () => {
  it('lets only execute write to any command topic', () => {
    for (const rows of TABLES) {
      const writers = principalsWith(rows, 'WRITE', (t) => t.startsWith(COMMAND_TOPIC_PREFIX));
      expect([...writers]).toEqual([stagePrincipal('execute')]);
    }
  });

  it('lets only validate read proposals and only confirm read approvals', () => {
    for (const rows of TABLES) {
      const proposals = principalsWith(rows, 'READ', (t) => t === TOPIC_NAMES.proposals);
      const approvals = principalsWith(rows, 'READ', (t) => t === TOPIC_NAMES.approvals);
      expect([...proposals]).toEqual([stagePrincipal('validate')]);
      expect([...approvals]).toEqual([stagePrincipal('confirm')]);
    }
  });

  it('lets each agent read exactly its own tenant’s observations topic and nothing else', () => {
    for (const rows of TABLES) {
      for (const tenant of EXAMPLE_TENANTS) {
        const reads = rows
          .filter((r) => r.principal === agentPrincipal(tenant) && r.resourceType === 'TOPIC')
          .filter((r) => r.operation !== 'WRITE')
          .map((r) => r.resourceName.replace(/^acme-prod\./, ''));
        expect(reads).toEqual([`${TOPIC_NAMES.observations}.${tenant}`]);
      }
    }
  });

  it('lets nobody but the four stages write audit, observations or the internal topics', () => {
    const gateOnly = (t: string) =>
      t === TOPIC_NAMES.audit || t.startsWith(`${TOPIC_NAMES.observations}.`) || INTERNAL.has(t);
    for (const rows of TABLES) {
      const writers = principalsWith(rows, 'WRITE', gateOnly);
      expect([...writers].every((p) => STAGE_PRINCIPALS.has(p))).toBe(true);
      expect(writers.size).toBe(STAGE_PRINCIPALS.size);
    }
  });

  it('grants nothing beyond reading and writing', () => {
    for (const rows of TABLES) {
      expect(rows.every((r) => r.operation === 'READ' || r.operation === 'WRITE')).toBe(true);
    }
  });
});
