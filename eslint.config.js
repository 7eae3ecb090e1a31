// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { boundaries } from './scripts/lint/boundaries.js';

export default tseslint.config(
  {
    ignores: [
      '**/*.d.ts',
      '**/node_modules/**',
      '**/dist/**',
      '.stack/**',
      'coverage/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'infra/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSEnumDeclaration',
          message: 'Use an `as const` object and a derived union type.',
        },
      ],
    },
  },
  // Which module may import which: kafkajs, ioredis, the services, the platform barrel, cycles.
  ...boundaries,
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    // The functional core: facts in, decisions out. No I/O, clock, randomness or environment.
    files: ['packages/shared/src/**/*.ts'],
    // Tests and their support files (e.g. where the corpora are) run in vitest, not in the gate.
    // What the core may import is in scripts/lint/boundaries.js, with the other import rules.
    ignores: ['**/*.test.ts', '**/*.test-support.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'The core takes configuration as arguments.' },
        { name: 'console', message: 'The core does not log.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSEnumDeclaration',
          message: 'Use an `as const` object and a derived union type.',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'The core takes `now` as an argument.',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'The core takes `now` as an argument.',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'The core is deterministic.',
        },
        {
          selector: "CallExpression[callee.property.name='randomUUID']",
          message: 'The core is deterministic: ids come in as facts.',
        },
        {
          selector: "CallExpression[callee.property.name='randomBytes']",
          message: 'The core is deterministic.',
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'it', property: 'only', message: 'A focused test hides the rest of the suite.' },
        {
          object: 'describe',
          property: 'only',
          message: 'A focused test hides the rest of the suite.',
        },
        {
          object: 'test',
          property: 'only',
          message: 'A focused test hides the rest of the suite.',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The console's pages: plain ES modules that run in the browser.
    files: ['services/console/public/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  prettier,
);
