/**
 * Shared pieces of the storage browser tests (storage-*.spec.ts). They drive the real
 * production build through `globalThis.knack` (src/app/boot.ts); browser storage is never
 * mocked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';

/** Opens the app and waits until boot, journal recovery and the temp-file sweep are done. */
export async function openApp(page: Page, url = '/'): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => globalThis.knack !== undefined);
  await page.evaluate(async () => {
    await globalThis.knack!.ready;
  });
}

/** Temp files of ours and Chromium's own swap files, anywhere in OPFS. */
export async function strayTempFiles(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const all = await globalThis.knack!.files!.walk('');
    return all.filter((path) => path.endsWith('.knack-tmp') || path.endsWith('.crswap'));
  });
}

/**
 * The browser (main) process of a persistent context, found by its unique profile
 * directory: Playwright exposes no process for persistent contexts. Renderer, GPU and
 * utility processes carry `--type=` and are skipped.
 */
export function browserPid(userDataDir: string): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // exited meanwhile
    }
    if (args.includes(`--user-data-dir=${userDataDir}`) && !args.some((a) => a.startsWith('--type='))) {
      return Number(entry);
    }
  }
  return null;
}
