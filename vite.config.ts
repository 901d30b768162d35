import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { VitePWA } from 'vite-plugin-pwa';

export default defineConfig({
  plugins: [
    svelte(),
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
