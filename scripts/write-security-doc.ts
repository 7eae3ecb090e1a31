/** Writes docs/security.md from the ACL tables (`npx tsx scripts/write-security-doc.ts`). */
import { writeFileSync } from 'node:fs';
import { REGISTRY_BINDINGS } from '../infra/stack-principals.js';
import { aclTable, exampleAclScope } from '../packages/platform/src/acls.js';
import { renderSecurityDoc } from '../packages/platform/src/security-doc.js';

const page = renderSecurityDoc({ rows: aclTable(exampleAclScope()), infraRows: REGISTRY_BINDINGS });
writeFileSync(new URL('../docs/security.md', import.meta.url), page);
process.stdout.write('wrote docs/security.md\n');
