// ESLint flat config. Recommended rules of ESLint, typescript-eslint and eslint-plugin-svelte,
// without type information (a type-aware pass costs minutes on a small machine; `tsc` already
// checks types). The size rules hold the team's standard of functions ≤ 80 lines and files ≤ 400
// lines; each exception below says why it is earned.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

const SVELTE_FILES = ['**/*.svelte', '**/*.svelte.ts', '**/*.svelte.js'];

// The plugin's recommended rules come without a `files` scope; they are for Svelte code only.
const svelteRecommended = svelte.configs.recommended.map((config) => (config.rules && !config.files ? { ...config, files: SVELTE_FILES } : config));

const sizeRules = {
  'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
  'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
};

export default tseslint.config(
  {
    // Build output and reports (as in .gitignore), and public/ (static files served as they are).
    ignores: ['dist/**', 'dist-*/**', 'dev-dist/**', 'bench/out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'public/**', 'coverage/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelteRecommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.worker },
    },
    rules: {
      ...sizeRules,
      // `_`-prefixed names are deliberately unused (interface shapes, skipped tuple slots).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Non-null assertions mark facts the code has just checked (a regex group, a found entry).
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Empty catch blocks are how "best effort" cleanups read here; each says why in a comment.
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Warn: fires where a default is set before a try/catch that always reassigns it, a
      // readable habit here; tighten once the files of issue 8 settle.
      'no-useless-assignment': 'warn',
      // Warn in src (the IndexedDB adapter's generic store); off in tests below.
      '@typescript-eslint/no-explicit-any': 'warn',
      // The engine host's handle and test doubles return object literals whose methods reach
      // their owner; `const host = this` reads clearer than rewriting them as arrows.
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    files: SVELTE_FILES,
    languageOptions: {
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] },
    },
    rules: {
      // Svelte 5 navigation here is by hash anchors; the SvelteKit resolver does not apply.
      'svelte/no-navigation-without-resolve': 'off',
      // Warn, not fail: many views use plain Map/Set inside $state on purpose, and the views
      // are being restructured in parallel (issue 8); fix as each view is touched.
      'svelte/prefer-svelte-reactivity': 'warn',
    },
  },
  {
    // Node-side code: configs, the bench runner, fixtures and tests run under Node too.
    files: ['*.config.{js,ts}', 'bench/**', 'tests/**'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // CommonJS configs (dependency-cruiser reads only .cjs/.js configs through require).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },

  // ---- Earned per-file exceptions (each says why) ----
  {
    // Tests and their fixtures: a describe block holds a module's cases (the Hermes ports keep
    // Hermes' grouping), and the scripted server is one closure over its state.
    files: ['tests/**/*.ts'],
    rules: { 'max-lines': 'off', 'max-lines-per-function': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The scanner's threat-pattern table (~150 lines of data) sits beside the matcher it feeds;
    // if the code grows, the ignore rules and install policy are the seam to split out.
    files: ['src/skills/scanner.ts'],
    rules: { 'max-lines': 'off' },
  },
  {
    // The scanners match invisible characters (zero-width joiner among them) on purpose.
    files: ['src/skills/scanner.ts', 'src/memory/memoryScan.ts'],
    rules: { 'no-misleading-character-class': 'off' },
  },
  {
    // Markdown is sanitised by DOMPurify in src/ui/markdown.ts before it reaches the DOM.
    files: ['src/ui/components/chat/Markdown.svelte', 'src/ui/components/skills/SkillBody.svelte', 'src/ui/components/gate/CaseDrillDown.svelte'],
    rules: { 'svelte/no-dom-manipulating': 'off', 'svelte/no-at-html-tags': 'off' },
  },
  {
    // Nine match strategies tried in order, sharing private span-mapping helpers; the sequence
    // matcher (matchingBlocks … ratioIfAtLeast) is the seam if the file grows.
    files: ['src/skills/fuzzyPatch.ts'],
    rules: { 'max-lines': 'off' },
  },
);
