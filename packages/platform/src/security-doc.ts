/**
 * The Markdown page `docs/security.md`: the threat model (who holds which credential, what each
 * can and cannot do), the Kafka ACL table grouped by principal, how to rotate every key without
 * losing a call, and a production checklist. The prose is fixed text; the tables are rendered from
 * the rows given, so the page shows exactly the bindings that are applied. A test keeps the page
 * and the code in sync (`npx tsx scripts/write-security-doc.ts` writes it).
 */
import { principalsOf, type AclRow } from './acls.js';
import { DECLARED_TOPICS, TOPIC_NAMES } from './topics.js';

/** What the page is rendered from. */
export interface SecurityDocInput {
  /** The gate's ACL table (`aclTable`) of the deployment the page describes. */
  readonly rows: readonly AclRow[];
  /** Bindings of infrastructure the local stack runs beside the gate (the schema registry's). */
  readonly infraRows: readonly AclRow[];
}

/** The whole page, ending in one newline. */
export function renderSecurityDoc(input: SecurityDocInput): string {
  const sections = [HEADER, threatModel(), aclSection(input), ROTATION, CHECKLIST];
  return `${sections.flat().join('\n').trimEnd()}\n`;
}

const HEADER = [
  '# Security',
  '',
  'Who holds which credential and what each can and cannot do, the Kafka ACLs that enforce it, how',
  'to rotate every key without losing a call, and what a production deployment needs beyond the',
  'local stack.',
  '',
  'Generated from the code: `npx tsx scripts/write-security-doc.ts`. The ACL tables are rendered',
  'from `aclTable` in `packages/platform/src/acls.ts`; a test fails when this page and the code',
  'differ.',
  '',
];

/** A topic's retention as people say it: `1 h`, `24 h`, `7 days`. */
function retentionText(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours >= 48 && hours % 24 === 0) return `${hours / 24} days`;
  if (Number.isInteger(hours)) return `${hours} h`;
  return `${Math.round(ms / 60_000)} min`;
}

/** How long the topics that carry session tokens keep their records. */
function tokenTopicsRetention(): string {
  const of = (name: string) =>
    retentionText(DECLARED_TOPICS.find((t) => t.name === name)?.retentionMs ?? Number.NaN);
  const proposals = of(TOPIC_NAMES.proposals);
  const approvals = of(TOPIC_NAMES.approvals);
  return proposals === approvals ? proposals : `${proposals} and ${approvals} respectively`;
}

function threatModel(): string[] {
  return [
    '## Threat model',
    '',
    'The gate stands between agents and tools. A component, or whoever takes one over, should be',
    'able to do its own job and nothing else: only the execute stage issues commands to tools, only',
    'the gate tells an agent what happened to its call, and an agent sees only its own tenant.',
    '',
    ...KAFKA_IDENTITIES,
    ...KEYS,
    ...SESSION_TOKENS(tokenTopicsRetention()),
    ...OBSERVATIONS,
    ...REDIS,
    ...REGISTRY,
    ...STILL_POSSIBLE,
  ];
}

const KAFKA_IDENTITIES = [
  '### Kafka identities',
  '',
  'Every component connects as its own principal (SASL/SCRAM, or a client certificate), and the',
  'ACL table below allows each one exactly what its job needs:',
  '',
  '- `toolgate-validate`, `toolgate-authorize`, `toolgate-confirm`, `toolgate-execute`: the four',
  '  stages. Each reads its own inputs and writes its own outputs, the observations topics and the',
  '  audit topic, in its own consumer group and transactional ids. Only execute may write to a',
  '  `toolgate.commands.<tool>` topic.',
  '- `agent-<tenant>`, one per tenant: writes proposals and reads its own tenant’s observations',
  '  topic. It can read no other topic and write nowhere else.',
  '- `worker-<name>`, one per tool worker: reads the command topics of its own tools and writes',
  '  results. It cannot read another tool’s commands or write a command.',
  '- `toolgate-analytics`: reads the audit topic, writes and reads its own output (`refusal-stats`, `alerts`), nothing else.',
  '- `toolgate-console`, for approval UIs and bots: reads confirmation requests and writes',
  '  approvals. An approval counts only if it carries a valid session token of someone allowed to',
  '  approve.',
  '- `admin`: the super user, for administration only (users, topics, ACLs). No component runs as',
  '  `admin`. The local stack has a second super user, `controller`, with which the broker logs in',
  '  to its own controller listener.',
  '',
];

const KEYS = [
  '### Keys',
  '',
  '- **`TOOLGATE_INTEGRITY_KEY`** (all four stages). Every internal envelope on',
  '  `toolgate.validated`, `toolgate.authorized` and `toolgate.cleared` carries an HMAC-SHA256 tag',
  '  over the topic name and the record’s exact bytes. A stage refuses an envelope whose tag does',
  '  not verify (`authentication/forged_envelope`) and one whose `issuedAt` is older than',
  '  `TOOLGATE_ENVELOPE_MAX_AGE_MS` (default 1 h; `authentication/stale_envelope`), so a recorded',
  '  envelope cannot be published again later. Both are audited and never forwarded.',
  '- **`TOOLGATE_COMMAND_KEY`** (execute only). Each tool’s key is derived from it as',
  '  HMAC-SHA256(command key, "toolgate tool key v1", NUL, tool name). Execute puts a',
  '  `toolgate-proof` header on every command: an HMAC under that tool’s key over the topic and the',
  '  exact bytes. A tool worker holds only its own tools’ keys (`TOOLGATE_TOOL_KEYS`, `tool:key`',
  '  pairs, printed for an operator by `npx toolgate keys tool <name>`), verifies every command and',
  '  its deadline before any handler runs, and tags each result with the same tool key. Execute',
  '  accepts a result only for a pending command with the same command id, idempotency key and run',
  '  whose tool’s key verifies the proof; otherwise it audits `forged_result` or',
  '  `unmatched_result` and changes nothing. HMAC is a pseudo-random function: from one tool’s key',
  '  nobody can compute another’s, so a worker cannot make commands or results for other tools.',
  '- **`TOOLGATE_OBSERVATION_KEY`** (all four stages): an Ed25519 private key. Every observation',
  '  carries `toolgate-signature: <key id>.<base64url signature>` over the topic and the exact',
  '  bytes. Agent clients hold only the public keys (`TOOLGATE_OBSERVATION_PUBLIC_KEYS`) and drop,',
  '  count and log any observation that does not verify.',
  '',
];

const SESSION_TOKENS = (retention: string) => [
  '### Session tokens',
  '',
  'A user’s session token is verified by validate (on proposals) and confirm (on approvals), and by',
  'no other component. Tokens travel only on `toolgate.proposals` and `toolgate.approvals`, which',
  `keep records ${retention} and which only validate and confirm (and the \`admin\` super user)`,
  'can read.',
  'Each token must carry the issuer, audience, `iat` and `exp` the deployment requires, within',
  'its longest lifetime (24 h by default); the secret published with the example is accepted only',
  'by a deployment that says it is a demo ([sessions.md](sessions.md)).',
  '',
];

const OBSERVATIONS = [
  '### Observations',
  '',
  'Each tenant has its own observations topic, `toolgate.observations.<tenant>`, which only that',
  'tenant’s agent principal can read. A refusal whose tenant is unknown (the session could not be',
  'verified) carries only the refusal. It goes to the observations topic of the tenant that the',
  'proposal’s `toolgate-reply-tenant` header names, if the deployment knows that tenant; otherwise',
  'only to the audit topic, and the agent learns of it by its own timeout.',
  '',
];

const REDIS = [
  '### Redis',
  '',
  'The stages use the gate’s Redis user. Each tool worker has a user confined to its ledger keys',
  'and the keys of the objects its tools change; it cannot touch idempotency records, pending',
  'confirmations or counters. The default user is off. In the local stack these are',
  '`toolgate-gate`, `worker-billing` and `admin` (for operators), as `infra/redis.ts` makes them.',
  '',
];

const REGISTRY = [
  '### Schema registry',
  '',
  'Only the gate’s stages register schemas; agents and workers only look schema ids up. The local',
  'registry has no authentication and listens on the loopback address only: anyone on the machine',
  'could register a schema under a subject. That changes no decision (the gate verifies tags and',
  'proofs, and decodes with its own validators), but in production the registry belongs behind',
  'authentication.',
  '',
];

const STILL_POSSIBLE = [
  '### What stays possible',
  '',
  '- A compromised execute can issue any command for any tool: it holds the command key.',
  '- A compromised stage can forge internal envelopes and observations: it holds the integrity and',
  '  observation keys.',
  '- A compromised tool worker can run its own tools’ commands with any arguments and forge its own',
  '  tools’ results.',
  '- Whoever holds the gate’s Redis password can change idempotency records, pending confirmations',
  '  and counters, for example delete a record so that a repeated call runs again.',
  '- The `admin` super user bypasses every ACL, which is why commands, envelopes and observations',
  '  carry proofs that Kafka permissions alone cannot give.',
  '- Anyone holding a user’s valid session token can act as that user until it expires.',
  '- The local stack uses SASL over plaintext on the loopback address: passwords and records are',
  '  not encrypted in transit.',
  '',
];

function aclSection(input: SecurityDocInput): string[] {
  return [
    '## The ACL table',
    '',
    'One ALLOW binding per row, any host. Everything not listed is denied: the broker runs a',
    'default-deny authorizer (`allow.everyone.if.no.acl.found=false`), which only super users',
    'bypass. This is the table `npm run stack:up` and `npx toolgate acls apply` create and',
    '`npx toolgate acls print` prints, here for the example deployment (`exampleAclScope()`, without',
    'topic or group prefixes). READ and WRITE each imply DESCRIBE.',
    '',
    ...principalTables(input.rows, '###'),
    '### Local stack infrastructure',
    '',
    'Not part of the gate: the principals of what the local stack runs beside it, created with the',
    'gate’s table by `npm run stack:up` and by `docker-compose.yml`.',
    '',
    ...principalTables(input.infraRows, '####'),
  ];
}

/** One heading and table per principal, in the order the rows name them. */
function principalTables(rows: readonly AclRow[], heading: string): string[] {
  return principalsOf(rows).flatMap((principal) => [
    `${heading} \`${principal}\``,
    '',
    ...markdownTable(
      ['resource', 'name', 'pattern', 'operation', 'why'],
      rows.filter((r) => r.principal === principal).map(tableRow),
    ),
    '',
  ]);
}

const RESOURCE_WORDS: Readonly<Record<AclRow['resourceType'], string>> = {
  TOPIC: 'topic',
  GROUP: 'group',
  TRANSACTIONAL_ID: 'transactional id',
  CLUSTER: 'cluster',
};

function tableRow(row: AclRow): string[] {
  return [
    RESOURCE_WORDS[row.resourceType],
    `\`${row.resourceName}\``,
    row.patternType.toLowerCase(),
    row.operation,
    row.why,
  ];
}

/** A table as Prettier lays it out (columns padded to their widest cell), so it stays as written. */
function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const cells = [header, ...rows].map((row) => row.map((c) => c.replaceAll('|', '\\|')));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) =>
    `| ${widths.map((w, i) => (row[i] ?? '').padEnd(w)).join(' | ')} |`;
  const [head = [], ...body] = cells;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)];
}

const ROTATION = [
  '## Rotating each key without losing a call',
  '',
  'Every key can be replaced while the gate runs. For the gate’s own keys the old and the new key',
  'are both accepted for a while, so calls in flight finish under the old one. To roll is to',
  'restart the named processes one instance at a time.',
  '',
  '### Session keys',
  '',
  'Publish the new key in the JWKS beside the old one, switch the issuer to it, and remove the old',
  'key once the longest token lifetime has passed. The JWKS file is read again when it changes,',
  'and the JWKS URL fetched again when its cache ends or a token names a new key: no restart.',
  'Removing a key refuses every token it signed. How a deployment plugs in its identity provider:',
  '[sessions.md](sessions.md).',
  '',
  '### Integrity key',
  '',
  '1. Add the new key to `TOOLGATE_INTEGRITY_KEYS_ACCEPTED` on every stage and roll them: the key',
  '   is now accepted, not yet used.',
  '2. Set `TOOLGATE_INTEGRITY_KEY` to the new key, move the old one into',
  '   `TOOLGATE_INTEGRITY_KEYS_ACCEPTED`, and roll the stages.',
  '3. After `TOOLGATE_ENVELOPE_MAX_AGE_MS`, when no envelope tagged with the old key can still be',
  '   accepted, remove it.',
  '',
  '### Command key',
  '',
  '1. Derive every tool’s new key (`npx toolgate keys tool <name>` with the new command key), give',
  '   each worker both its old and its new keys in `TOOLGATE_TOOL_KEYS`, and roll the workers.',
  '2. Set execute’s `TOOLGATE_COMMAND_KEY` to the new key with the old one in',
  '   `TOOLGATE_COMMAND_KEYS_ACCEPTED`, and roll execute: results of commands issued under the old',
  '   key still verify.',
  '3. After the longest tool deadline, drop the old keys from execute and from the workers.',
  '',
  '### Observation key',
  '',
  '1. Add the new public key to every agent’s `TOOLGATE_OBSERVATION_PUBLIC_KEYS`.',
  '2. Switch the stages’ `TOOLGATE_OBSERVATION_KEY` to the new private key and roll them.',
  '3. Once the agents have read the observations signed with the old key, drop its public key from',
  '   them.',
  '',
  '### Kafka passwords',
  '',
  'SCRAM keeps one credential per mechanism per user, so there are two ways:',
  '',
  '- Update it in place:',
  "  `kafka-configs.sh --alter --add-config 'SCRAM-SHA-512=[password=…]' --entity-type users --entity-name <principal>`.",
  '  Connections already open stay up. Restart the component with the new password; it resumes',
  '  from its committed offsets and loses nothing, but a reconnect in between fails until then.',
  '- For no failed reconnect at all: create a second principal with the same ACLs, move the',
  '  component to it, then delete the first.',
  '',
  '### Redis passwords',
  '',
  'A Redis ACL user may hold several passwords: `ACL SETUSER <user> >new`, move the component to',
  'it (`TOOLGATE_REDIS_URL`), then `ACL SETUSER <user> <old` removes the old one.',
  '',
];

const CHECKLIST = [
  '## Production checklist',
  '',
  '- [ ] TLS to the brokers: `TOOLGATE_KAFKA_TLS=on`, with `TOOLGATE_KAFKA_TLS_CA_FILE` unless the',
  '      system CAs signed the brokers’ certificates.',
  '- [ ] One identity per component: SASL/SCRAM (`TOOLGATE_KAFKA_SASL_MECHANISM`,',
  '      `TOOLGATE_KAFKA_USERNAME`, `TOOLGATE_KAFKA_PASSWORD_FILE`) or mTLS',
  '      (`TOOLGATE_KAFKA_TLS_CERT_FILE`, `TOOLGATE_KAFKA_TLS_KEY_FILE`).',
  '- [ ] The controller listener authenticated too.',
  '- [ ] A default-deny authorizer (`allow.everyone.if.no.acl.found=false`) with this table applied',
  '      (`npx toolgate acls apply`) and no other principal granted anything on the gate’s topics.',
  '- [ ] Super users only for administration, and never `User:ANONYMOUS`.',
  '- [ ] Redis with ACL users (the gate’s, one per tool worker) and the default user off.',
  '- [ ] Redis persistence on (AOF): idempotency records and pending confirmations live there.',
  '- [ ] TLS to Redis (`rediss://`).',
  '- [ ] The schema registry behind authentication.',
  '- [ ] Secrets read from files or a secret store, never in the environment of an unrelated',
  '      process.',
  '- [ ] Every key distinct per deployment, never the example’s session secret.',
  '- [ ] Alerts on the `forged_*` and `stale_envelope` audit codes and on consumer lag.',
  '',
];
