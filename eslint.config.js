// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test-results/', '.bench-tmp/', 'adapters/web/static/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // Settings are read once, at the edge (src/config/environment.ts, for the settings loader) and
    // children's environments are built in one place (src/environments/child-env.ts); everything
    // else is handed the Settings snapshot or the variables taken from it.
    files: ['src/**/*.ts', 'adapters/**/*.ts'],
    ignores: ['src/config/environment.ts', 'src/environments/child-env.ts'],
    rules: {
      'no-restricted-properties': ['error', {
        object: 'process',
        property: 'env',
        message: 'read settings from the Settings snapshot (src/config); only src/config/environment.ts and src/environments/child-env.ts read process.env',
      }],
    },
  },
  {
    // The CLI, benchmarks, examples, fakes and scripts talk to a terminal on purpose.
    files: ['src/cli/**', 'bench/**', 'examples/**', 'scripts/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
