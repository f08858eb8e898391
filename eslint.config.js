// @ts-check
import tseslint from 'typescript-eslint';

// What ships in the images never reaches the development tree (tests/unit/shipped-imports.test.ts
// checks the same over every import form, dynamic ones included).
const devTree = [
  { group: ['**/dev', '**/dev/**'], message: 'dev/ (local cluster, demo) is not in the images; runtime/ must not import it.' },
  { group: ['**/tests/**', '**/scripts/**'], message: 'tests/ and scripts/ are not in the images; move the shared piece into runtime/, domain/ or schema/.' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'ui/web/dist/**', '.localcluster/**'] },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // `(x) => resolve(x)` callbacks are idiomatic; void-returning shorthand is not a bug here.
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'before', 'after'] }] },
      ],
    },
  },
  {
    // Handlers, domain rules and schemas stay pure: no HTTP framework, no database, no Node
    // I/O, and nothing from the runtime, which is what implements their services.
    files: ['handlers/**', 'domain/**', 'schema/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'hono', message: 'HTTP belongs to runtime/; return a value or a ResponseEffect.' },
            { name: 'kysely', message: 'SQL belongs to runtime/; reach the store through a service.' },
          ],
          patterns: [
            { group: ['hono/*', '@hono/*'], message: 'HTTP belongs to runtime/; return a value or a ResponseEffect.' },
            { group: ['kysely/*'], message: 'SQL belongs to runtime/; reach the store through a service.' },
            { group: ['node:*'], message: 'I/O belongs to runtime/; take it as a service in the handler context.' },
            { group: ['**/runtime', '**/runtime/**'], message: 'runtime/ implements handlers, not the other way round: move the shared piece to domain/ or schema/, or inject it as a service.' },
            ...devTree,
          ],
        },
      ],
    },
  },
  {
    files: ['runtime/**', 'ui/server.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: devTree }] },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
