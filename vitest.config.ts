import { defineConfig } from 'vitest/config';
import { defaultServerConditions } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// Rune modules (`*.svelte.ts`, and tests named `*.svelte.test.ts` that use runes themselves)
// go through the Svelte compiler. Unit tests run in Node, which Vite treats as a server, and
// a server build of a rune module never runs its effects; so they are compiled for the
// client and `svelte` resolves to its client runtime (the `browser` export condition).
// Packages that list a `node` export before `browser` keep their Node build.
export default defineConfig({
  plugins: [svelte({ configFile: false, dynamicCompileOptions: () => ({ generate: 'client' }) })],
  ssr: { resolve: { conditions: ['browser', ...defaultServerConditions] } },
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    // Some tests do real work (Monte-Carlo runs of the gate, indexes of 10,000 skills) that takes
    // 2-3 s alone and 6 s or more on a loaded 2-core machine: the limit is there to catch a hang,
    // not to time them (speed is measured by `npm run bench`).
    testTimeout: 30_000,
    // The suite's time was module loading, not tests: each of 179 files loaded its own module
    // graph in a forked process (81 s on this 2-core machine). Worker threads sharing one module
    // graph per worker take 33 s. Tests therefore leave no module state behind them; shuffled
    // file orders (`--sequence.shuffle.files`) pass, and CI's order (file size, no cache) too.
    pool: 'threads',
    isolate: false,
    hookTimeout: 30_000,
  },
});
