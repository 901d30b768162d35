import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser. The extra flags keep Chromium from
// reaching for Google services on a closed network.
export const chromiumLaunch = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    '--enable-unsafe-webgpu',
  ],
};

const port = Number(process.env.KNACK_PORT ?? 4173);

export default defineConfig({
  testDir: 'tests/browser',
  timeout: 60_000,
  fullyParallel: false,
  workers: 2,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: chromiumLaunch,
    serviceWorkers: 'block',
  },
  webServer: {
    command: `npx vite preview --port ${port} --strictPort --host 127.0.0.1`,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: !process.env.CI,
    timeout: 30_000,
  },
});
