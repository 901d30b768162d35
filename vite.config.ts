import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { VitePWA } from 'vite-plugin-pwa';
import type { Connect, Plugin } from 'vite';

/**
 * The forged-tool sandbox worker's own content security policy (docs/forged-tools.md, "The
 * sandbox"): a worker takes its policy from its script's response, not from the page's <meta>,
 * so the preview and dev servers send it with that one script (public/network-sw.js does the
 * same when the service worker answers). No connect-src: the worker can make no request at all.
 */
export const FORGED_WORKER_CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'";
const FORGED_WORKER_PATH = /\/forgedTool\.worker[-.][^/]*$/;

function forgedWorkerCsp(): Plugin {
  const middleware: Connect.NextHandleFunction = (request, response, next) => {
    if (FORGED_WORKER_PATH.test((request.url ?? '').split('?')[0]!)) response.setHeader('Content-Security-Policy', FORGED_WORKER_CSP);
    next();
  };
  return {
    name: 'knack-forged-worker-csp',
    configureServer: (server) => void server.middlewares.use(middleware),
    configurePreviewServer: (server) => void server.middlewares.use(middleware),
  };
}

export default defineConfig({
  plugins: [
    svelte(),
    forgedWorkerCsp(),
    VitePWA({
      // 'prompt': a new version waits until the user accepts, so a reload never
      // interrupts a generation (see src/ui/state/updates.svelte.ts).
      registerType: 'prompt',
      injectRegister: false,
      includeAssets: ['icons/*.svg', 'icons/*.png'],
      manifest: {
        name: 'Knack',
        short_name: 'Knack',
        description: 'A private chat agent that learns skills in your browser and proves them before trusting them.',
        theme_color: '#1f6feb',
        background_color: '#ffffff',
        display: 'standalone',
        start_url: '.',
        scope: '.',
        icons: [
          { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest,wasm}'],
        // The web-llm chunk is ~6 MB; the default 2 MiB limit would fail the build.
        maximumFileSizeToCacheInBytes: 16 * 1024 * 1024,
        navigateFallback: 'index.html',
        // Counts the service worker's own requests for the Privacy panel (public/network-sw.js).
        importScripts: ['network-sw.js'],
      },
    }),
  ],
  worker: { format: 'es' },
  // KNACK_OUTDIR / KNACK_PORT let several builds and preview servers run side by side.
  build: { target: 'es2022', sourcemap: false, outDir: process.env.KNACK_OUTDIR ?? 'dist' },
  preview: { port: Number(process.env.KNACK_PORT ?? 4173), strictPort: true, host: '127.0.0.1' },
});
