// Lint rules: the recommended sets of ESLint and typescript-eslint, type-aware; eslint-config-prettier
// turns off what Prettier decides (layout), and two limits keep lines and functions a reader can hold.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Reference data: tables kept in the shape of their sources (also in .prettierignore). */
const REFERENCE_DATA = [
  'src/catalog/reference/**',
  'src/search/pg-parser-states.ts',
  'src/search/charclass.ts',
  'src/search/unaccent.ts',
  'src/search/stopwords.ts',
];

/** The browser's globals the pages' scripts use (the `globals` package is not a dependency). */
const BROWSER_GLOBALS = ['window', 'document', 'sessionStorage', 'fetch', 'URL', 'URLSearchParams', 'setTimeout', 'requestAnimationFrame'];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'snapshots/', 'bench/results/', '.dependency-cruiser.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@stylistic': stylistic },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      'no-console': 'off',
      // Prettier wraps code at 140 columns; comments are held to it too. A string, template or
      // regular expression is one token Prettier cannot break: it may run past.
      '@stylistic/max-len': [
        'error',
        { code: 140, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  // A test file's describe() holds its cases: its length is the list of behaviours, not one function to read.
  { files: ['test/**'], rules: { 'max-lines-per-function': 'off' } },
  { files: REFERENCE_DATA, rules: { '@stylistic/max-len': 'off' } },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  // The pages' own scripts run in the browser as they are (no build step): not type-checked, browser globals.
  {
    files: ['src/http/pages/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: Object.fromEntries(BROWSER_GLOBALS.map((name) => [name, 'readonly'])),
    },
  },
);
