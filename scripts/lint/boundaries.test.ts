/**
 * The import rules of scripts/lint/boundaries.js, run through ESLint as `npm run lint` runs them:
 * each refuses a planted violation and lets the allowed place pass, and the repository breaks none.
 * Type information is switched off here (these rules do not use it), so files need not exist.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BOUNDARY_RULES = new Set(['no-restricted-imports', 'toolgate/no-import-cycle']);

const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

/** The boundary problems ESLint finds in `code` as if it were the file at `file` (from the root). */
async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId !== null && BOUNDARY_RULES.has(m.ruleId))
    .map((m) => `${m.ruleId}: ${m.message}`);
}

describe('who may import kafkajs and the registry client', { timeout: 60_000 }, () => {
  const kafkajs = "import kafkajs from 'kafkajs';\nexport const k = kafkajs;\n";
  const registry =
    "import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';\nexport const r = SchemaRegistry;\n";

  it('refuses kafkajs outside the platform’s kafka folder', async () => {
    for (const file of [
      'packages/platform/src/planted.ts',
      'packages/agent-client/src/planted.ts',
      'services/validate/src/planted.ts',
      'infra/planted.ts',
    ]) {
      expect(await problems(file, kafkajs)).toEqual([
        expect.stringMatching(
          /^no-restricted-imports: .*kafkajs is imported only in packages\/platform\/src\/kafka\//,
        ),
      ]);
    }
  });

  it('lets the kafka folder, the stack’s Kafka admin and tests import kafkajs', async () => {
    expect(await problems('packages/platform/src/kafka/planted.ts', kafkajs)).toEqual([]);
    expect(await problems('infra/kafka-admin.ts', kafkajs)).toEqual([]);
    expect(await problems('test/integration/planted.test.ts', kafkajs)).toEqual([]);
  });

  it('refuses the registry client anywhere but the codec', async () => {
    expect(await problems('packages/platform/src/kafka/planted.ts', registry)).toEqual([
      expect.stringMatching(/registry client is imported only by the codec/),
    ]);
    expect(await problems('packages/platform/src/codec.ts', registry)).toEqual([]);
  });
});

describe('who may import ioredis', { timeout: 60_000 }, () => {
  const ioredis = "import { Redis } from 'ioredis';\nexport const r = Redis;\n";

  it('refuses ioredis outside the platform’s redis folder', async () => {
    for (const file of [
      'packages/platform/src/kafka/planted.ts',
      'packages/tool-worker/src/planted.ts',
      'services/execute/src/planted.ts',
    ]) {
      expect(await problems(file, ioredis)).toEqual([
        expect.stringMatching(/ioredis is imported only in packages\/platform\/src\/redis\//),
      ]);
    }
  });

  it('lets the redis folder, the stack’s Redis module and tests import ioredis', async () => {
    expect(await problems('packages/platform/src/redis/planted.ts', ioredis)).toEqual([]);
    expect(await problems('infra/redis.ts', ioredis)).toEqual([]);
    expect(await problems('services/execute/src/planted.test.ts', ioredis)).toEqual([]);
  });
});

describe('who may import a service', { timeout: 60_000 }, () => {
  const byName = "import * as validate from '@toolgate/validate';\nexport const v = validate;\n";
  const byPath =
    "import * as validate from '../../../services/validate/src/service.js';\nexport const v = validate;\n";

  it('refuses a service to the platform, the SDKs and other services', async () => {
    for (const file of [
      'packages/platform/src/planted.ts',
      'packages/agent-client/src/planted.ts',
      'packages/shared/src/planted.ts',
      'services/execute/src/planted.ts',
    ]) {
      expect(await problems(file, byName)).toEqual([
        expect.stringMatching(/Only the CLI \(packages\/cli\) and tests import a service/),
      ]);
    }
    expect(await problems('packages/platform/src/planted.ts', byPath)).toEqual([
      expect.stringMatching(/Only the CLI/),
    ]);
  });

  it('lets the CLI and tests import services', async () => {
    expect(await problems('packages/cli/src/planted.ts', byName)).toEqual([]);
    expect(await problems('packages/cli/src/planted.ts', byPath)).toEqual([]);
    expect(await problems('test/integration/planted.test.ts', byName)).toEqual([]);
  });
});

describe('what the SDKs import of the platform', { timeout: 60_000 }, () => {
  it('refuses the platform barrel', async () => {
    const barrel = "import { createBus } from '@toolgate/platform';\nexport const b = createBus;\n";
    for (const file of [
      'packages/agent-client/src/planted.ts',
      'packages/tool-worker/src/planted.ts',
    ]) {
      expect(await problems(file, barrel)).toEqual([
        expect.stringMatching(/An SDK imports the platform entry points it uses/),
      ]);
    }
  });

  it('lets them import an entry point', async () => {
    const entry =
      "import { createBus } from '@toolgate/platform/kafka';\nexport const b = createBus;\n";
    expect(await problems('packages/tool-worker/src/planted.ts', entry)).toEqual([]);
  });
});

describe('import cycles', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(path.join(root, 'boundaries-planted-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a cycle, also when one side imports only types', async () => {
    const a = path.join(dir, 'a.ts');
    const aCode = "import { b } from './b.js';\nexport type A = string;\nexport const a = b;\n";
    mkdirSync(dir, { recursive: true });
    writeFileSync(a, aCode);
    writeFileSync(
      path.join(dir, 'b.ts'),
      "import type { A } from './a.js';\nexport const b: A = 'b';\n",
    );
    const name = path.relative(root, dir);
    expect(await problems(path.relative(root, a), aCode)).toEqual([
      `toolgate/no-import-cycle: Import cycle: ${name}/a.ts → ${name}/b.ts → ${name}/a.ts. Move what both sides need into a module that neither imports.`,
    ]);
  });

  it('lets a module import one that does not lead back', async () => {
    const c = path.join(dir, 'c.ts');
    const cCode = "import { b } from './b.js';\nexport const c = b;\n";
    writeFileSync(c, cCode);
    expect(await problems(path.relative(root, c), cCode)).toEqual([]);
  });
});

describe('the repository', { timeout: 60_000 }, () => {
  it('breaks none of the import rules', { timeout: 300_000 }, async () => {
    const results = await eslint.lintFiles(['.']);
    const broken = results.flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId !== null && BOUNDARY_RULES.has(m.ruleId))
        .map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.message}`),
    );
    expect(broken).toEqual([]);
  });
});
