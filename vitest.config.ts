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
  },
});
