// Lint: typescript-eslint's recommended rules, plus the type-aware ones that
// catch what bites an async service (a promise nobody awaits, a promise where a
// callback's boolean or void is expected). Formatting is prettier's job, so
// eslint-config-prettier turns off every rule it would fight with.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'bench/results/', 'test-artifacts/', 'coverage/', 'extensions/*/dist/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'off',
      // A callback declared before the value it closes over is assigned (let x; ... x = new X(() => x)).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The dashboard's scripts run in the browser as classic scripts, sharing
    // one global scope (charts.js and stores.js define what app.js calls).
    files: ['src/http/dashboard/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
    rules: { 'no-unused-vars': 'off' },
  },
  {
    // The merchant's page: modules in the browser (merchant.js imports the rest), beside the global of its admin's
    // own script (its meta names it); elements.js, the stand-ins, a classic script loaded before them.
    files: ['src/http/merchant/*.js'],
    ignores: ['src/http/merchant/elements.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    files: ['src/http/merchant/elements.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    // The theme app extension's script: one classic script on the store's pages (extensions/loyalty-theme).
    files: ['extensions/*/assets/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    // One list of platforms (src/platform-registry.ts): the rest of src/ takes their names from it
    // (the API hands them to the pages); no file of src/ names one (docs/development.md, "Adding a platform").
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[value=/^(shopify|woocommerce|bigcommerce)$/]',
          message: 'Name a platform only in src/platform-registry.ts or its own module; take names from there.',
        },
        {
          selector: 'TemplateElement[value.raw=/^(shopify|woocommerce|bigcommerce):/]',
          message: 'Name a platform only in src/platform-registry.ts or its own module; take names from there.',
        },
      ],
    },
  },
  {
    // Capabilities (src/core/capabilities/, docs/architecture.md): a platform has one whole or not at all, so none
    // has an optional member; a member a platform may lack is a capability of its own. (The rule's options replace
    // src/'s above, so its selectors are repeated here.)
    files: ['src/core/capabilities/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSPropertySignature[optional=true], TSMethodSignature[optional=true]',
          message:
            'A capability has no optional member: make it required, or a capability of its own that a platform lists.',
        },
        {
          selector: 'Literal[value=/^(shopify|woocommerce|bigcommerce)$/]',
          message: 'Name a platform only in src/platform-registry.ts or its own module; take names from there.',
        },
      ],
    },
  },
  {
    // The ledger's roles (src/core/store/roles/, docs/architecture.md): each part of the bridge names the roles it
    // uses. Only the store's own code and the composition roots, which open the store and hand out its roles, hold
    // it whole.
    files: ['src/**/*.ts', 'adapters/**/*.ts'],
    ignores: ['src/core/store/**', 'src/composition/**', 'src/cli/**', 'src/core/engine.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/ledger-store.ts'],
              importNames: ['LedgerStore'],
              message: 'Take the roles this part uses (IntakeRole, RecordRole, ...), not the whole store.',
            },
          ],
        },
      ],
    },
  },
  {
    // Sizes a reader can hold (issue 70): no file over 400 lines, no function over 80, and no exception.
    files: ['src/**/*.ts', 'adapters/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Tests read answers as untyped JSON.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettier,
);
