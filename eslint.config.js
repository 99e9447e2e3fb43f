import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

// Import rules of the web zones (docs/architecture.md): app/ composes the modules; a module
// (modules/<name>/, flat) never imports app/ and reaches another module only through that
// module's public.ts; the shared zones (components, lib, offline, session) import neither.
// Patterns are regular expressions on the import path; the one rule entry of a file must carry
// every pattern, since a later config object for the same rule replaces an earlier one.
const WEB_NEVER_SERVER = { group: ['**/server/**'], message: 'web never imports server code' };
// Relative paths up to src/web/app or src/web/modules ('../../app/router', '../../../web/app/router').
const REACHES_APP = String.raw`^(\.\.\/)+(web\/)?app(\/|$)`;
const REACHES_MODULE = String.raw`^(\.\.\/)+(web\/)?modules(\/|$)`;
// '../other/x' from a module file, or '../../modules/other/x': another module, unless x is public.
const SIBLING_MODULE_NOT_PUBLIC = String.raw`^\.\.\/(?!\.\.\/)[^./][^/]*(\/(?!public$).*)?$`;
const MODULE_NOT_PUBLIC = String.raw`^(\.\.\/)+(web\/)?modules\/[^/]+(\/(?!public$).*)?$`;
const MODULE_RULES = [
  { regex: REACHES_APP, message: 'a module never imports app/ (the shell): what modules share lives in session/, lib/ or components/' },
  { regex: SIBLING_MODULE_NOT_PUBLIC, message: "a module imports another module only through that module's public.ts" },
  { regex: MODULE_NOT_PUBLIC, message: "a module imports another module only through that module's public.ts" },
];
const SHARED_ZONE_RULES = [
  { regex: REACHES_APP, message: 'components, lib, offline and session never import app/ (the shell)' },
  { regex: REACHES_MODULE, message: 'components, lib, offline and session never import a module' },
];
// Server walls (docs/architecture.md): a module (modules/<name>/) reaches another module only
// through its public.ts ('../other/public.js'); db/ and plugins/ are below the modules and import none.
const SERVER_NEVER_WEB = { group: ['**/web/**'], message: 'server never imports web code' };
const SERVER_MODULE_NOT_PUBLIC = String.raw`^\.\.\/(?!\.\.\/)[^./][^/]*\/(?!public(\.js)?$).*$`;
const SERVER_MODULE_NOT_PUBLIC_LONG = String.raw`^(\.\.\/)+modules\/[^/]+\/(?!public(\.js)?$).*$`;
const SERVER_MODULE_RULES = [
  { regex: SERVER_MODULE_NOT_PUBLIC, message: "a server module imports another module only through that module's public.ts" },
  { regex: SERVER_MODULE_NOT_PUBLIC_LONG, message: "a server module imports another module only through that module's public.ts" },
];
const SERVER_INFRA_NO_MODULE = { regex: String.raw`(^|\/)modules\/`, message: 'db/ and plugins/ never import a module: modules build on them' };
/** The same patterns for lazy `import('…')`, which no-restricted-imports does not check. */
const dynamicImportBans = (rules) =>
  rules.map(({ regex, message }) => ({ selector: `ImportExpression[source.value=/${regex}/]`, message }));

export default tseslint.config(
  { ignores: ['dist', 'data', 'node_modules', 'test-results', 'playwright-report'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      'no-restricted-imports': ['error', { patterns: [WEB_NEVER_SERVER] }],
    },
  },
  {
    files: ['src/web/modules/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [WEB_NEVER_SERVER, ...MODULE_RULES] }],
      'no-restricted-syntax': ['error', ...dynamicImportBans(MODULE_RULES)],
    },
  },
  {
    files: ['src/web/{components,lib,offline,session}/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [WEB_NEVER_SERVER, ...SHARED_ZONE_RULES] }],
      'no-restricted-syntax': ['error', ...dynamicImportBans(SHARED_ZONE_RULES)],
    },
  },
  {
    files: ['src/server/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [SERVER_NEVER_WEB] }],
    },
  },
  {
    // Server modules meet only through each other's public.ts; tests and their factories may
    // reach further (they set up what they check).
    files: ['src/server/modules/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test-factories.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [SERVER_NEVER_WEB, ...SERVER_MODULE_RULES] }],
      'no-restricted-syntax': ['error', ...dynamicImportBans(SERVER_MODULE_RULES)],
    },
  },
  {
    files: ['src/server/{db,plugins}/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [SERVER_NEVER_WEB, SERVER_INFRA_NO_MODULE] }],
      'no-restricted-syntax': ['error', ...dynamicImportBans([SERVER_INFRA_NO_MODULE])],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/web/**', '**/server/**'], message: 'shared imports nothing from server or web' }] }],
    },
  },
);
