import { expect, test, type Page } from '@playwright/test';

// This file needs the real service worker (the config blocks it by default).
test.use({ serviceWorkers: 'allow' });

/** First visit installs the worker; a reload puts the page under its control. */
async function visitUntilControlled(page: Page): Promise<void> {
  await page.goto('/');
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
}

test('the app starts and takes input offline once installed', async ({ page, context }) => {
  await visitUntilControlled(page);

  await context.setOffline(true);
  // Prove the network really is gone for this page, so the next load can only come from the cache.
  const online = await page.evaluate(() => fetch('/manifest.webmanifest?bypass=' + Date.now(), { cache: 'no-store' }).then(() => true, () => false));
  expect(online).toBe(false);

  await page.reload();
  const message = page.getByRole('textbox', { name: 'Message' });
  await expect(message).toBeVisible();
  await message.fill('hello offline');
  await message.press('Enter');
  await expect(page.getByRole('list', { name: 'Messages' }).getByRole('listitem')).toContainText(['hello offline']);

  // Other views and a deep link are served from the precached shell too.
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('combobox', { name: 'Provider' })).toBeVisible();
  await page.goto('/some/deep/path#/skills');
  await expect(page.getByRole('button', { name: 'Import skills' })).toBeVisible();
  await context.setOffline(false);
});

test('the first install says the app now works offline', async ({ page }) => {
  await page.goto('/');
  const notice = page.getByRole('region', { name: 'Offline ready' });
  // The notice waits for the whole precache (the web-llm chunks are several MB): give a
  // loaded machine time to install it.
  await expect(notice).toContainText('Knack now works offline.', { timeout: 30_000 });
  await notice.getByRole('button', { name: 'OK' }).click();
  await expect(notice).toHaveCount(0);
});

test('the precache holds the shell: page scripts, styles, icons and manifest', async ({ page }) => {
  await visitUntilControlled(page);
  const { missing, cached } = await page.evaluate(async () => {
    const shell = [
      ...[...document.querySelectorAll<HTMLScriptElement>('script[src]')].map((script) => script.src),
      ...[...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"], link[rel="modulepreload"], link[rel="manifest"], link[rel="icon"]')].map(
        (link) => link.href,
      ),
      new URL('/icons/icon-192.png', location.href).href,
      new URL('/icons/icon-512.png', location.href).href,
      new URL('/index.html', location.href).href,
    ];
    const cachedUrls: string[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) cachedUrls.push(request.url.split('?')[0]);
    }
    return { missing: shell.filter((url) => !cachedUrls.includes(url)), cached: cachedUrls.length };
  });
  expect(cached).toBeGreaterThan(0);
  expect(missing).toEqual([]);
});

test('the manifest makes the app installable', async ({ page, request }) => {
  await page.goto('/');
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBeTruthy();
  const manifestUrl = new URL(href!, page.url()).href;
  const response = await request.get(manifestUrl);
  expect(response.ok()).toBe(true);
  const manifest = (await response.json()) as {
    name?: string;
    short_name?: string;
    start_url?: string;
    display?: string;
    icons?: { src: string; sizes: string; type?: string; purpose?: string }[];
  };
  expect(manifest.name).toBe('Knack');
  expect(manifest.short_name).toBeTruthy();
  expect(manifest.start_url).toBeDefined();
  expect(['standalone', 'fullscreen', 'minimal-ui']).toContain(manifest.display);

  const icons = manifest.icons ?? [];
  for (const size of ['192x192', '512x512']) {
    const icon = icons.find((candidate) => candidate.sizes.split(' ').includes(size) && (candidate.purpose ?? 'any').includes('any'));
    expect(icon, `an "any"-purpose ${size} icon`).toBeDefined();
    const image = await request.get(new URL(icon!.src, manifestUrl).href);
    expect(image.ok()).toBe(true);
    expect(image.headers()['content-type']).toContain('image/png');
    // The PNG header states the real pixel size; it must match what the manifest claims.
    const png = await image.body();
    const [width, height] = size.split('x').map(Number);
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([width, height]);
  }
});
