/**
 * The in-browser provider without model weights (none can be downloaded here): WebGPU detection
 * against headless Chromium's real SwiftShader adapter, the no-WebGPU path, the llm worker's
 * web-llm protocol with the network blocked, download/cancel UI states, and lazy loading of
 * web-llm's chunk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { chromiumLaunch } from '../../playwright.config';

const outDir = process.env.KNACK_OUTDIR ?? 'dist';
const assets = readdirSync(join(outDir, 'assets'));
const workerAsset = assets.find((name) => /^llm\.worker-.*\.js$/.test(name));
// The UI's lazily imported copy of web-llm: the non-worker chunk that contains its engine.
const webllmAsset = assets.find(
  (name) => name.endsWith('.js') && name !== workerAsset && readFileSync(join(outDir, 'assets', name), 'utf8').includes('WebWorkerMLCEngineHandler'),
);
const WEBLLM_CHUNK = new RegExp(`/assets/(${(webllmAsset ?? '-').replace(/\./g, '\\.')}|${(workerAsset ?? '-').replace(/\./g, '\\.')})`);

/** Hosts web-llm downloads from; nothing outside 127.0.0.1 is reachable in CI anyway. */
const MODEL_HOSTS = /huggingface\.co|githubusercontent\.com|hf\.co/;

async function openInBrowserSettings(page: Page): Promise<void> {
  await page.goto('/#/settings');
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'In-browser (WebGPU)' });
}

async function blockModelHosts(context: BrowserContext, mode: 'abort' | 'hang'): Promise<string[]> {
  const seen: string[] = [];
  await context.route(MODEL_HOSTS, async (route) => {
    seen.push(route.request().url());
    if (mode === 'abort') await route.abort('internetdisconnected');
    // 'hang': never answer, like a download that is still running.
  });
  return seen;
}

test('the build has the llm worker and a separate lazy web-llm chunk', () => {
  expect(workerAsset).toBeDefined();
  expect(webllmAsset).toBeDefined();
  const html = readFileSync(join(outDir, 'index.html'), 'utf8');
  expect(html).not.toContain(webllmAsset!);
  expect(html).not.toContain(workerAsset!);
});

test('web-llm is not fetched at start-up or in Settings while the provider is OpenAI-compatible', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('worker', (worker) => requested.push(worker.url()));
  await page.goto('/');
  await expect(page.getByRole('textbox').first()).toBeVisible();
  await page.goto('/#/settings');
  await expect(page.getByLabel('Base URL')).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(requested.filter((url) => WEBLLM_CHUNK.test(url))).toEqual([]);

  // Control: choosing the in-browser provider does fetch it, so the check above can fail.
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'In-browser (WebGPU)' });
  await expect(page.getByRole('combobox', { name: 'Model' })).toBeVisible({ timeout: 30_000 });
  expect(requested.some((url) => WEBLLM_CHUNK.test(url))).toBe(true);
});

test.describe('with the SwiftShader adapter (--enable-unsafe-webgpu)', () => {
  test('detects the adapter, no shader-f16, marks q4f16 models unsupported and defaults to q4f32', async ({ page }) => {
    await openInBrowserSettings(page);
    // What the browser itself reports, so the expectations below are about this environment.
    const raw = await page.evaluate(async () => {
      const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ features: Set<string>; info: { architecture: string } } | null> } }).gpu;
      const adapter = await gpu?.requestAdapter();
      return adapter ? { f16: adapter.features.has('shader-f16'), architecture: adapter.info.architecture } : null;
    });
    expect(raw).toEqual({ f16: false, architecture: 'swiftshader' });

    const status = page.getByTestId('webgpu-status');
    await expect(status).toContainText('WebGPU is available on');
    await expect(status).toContainText('software fallback');
    await expect(status).toContainText('No shader-f16: only q4f32 models can run here.');

    const picker = page.getByRole('combobox', { name: 'Model' });
    await expect(picker).toHaveValue('Qwen3-1.7B-q4f32_1-MLC', { timeout: 30_000 });
    const f16Option = picker.locator('option[value="Qwen3-1.7B-q4f16_1-MLC"]');
    await expect(f16Option).toBeDisabled();
    await expect(f16Option).toContainText('needs shader-f16');
    await expect(picker.locator('option[value="Llama-3.2-1B-Instruct-q4f32_1-MLC"]')).toBeEnabled();
    await expect(picker.locator('option[value="Llama-3.2-1B-Instruct-q4f32_1-MLC"]')).toContainText(/≈\d+ MB download, 1\.1 GB VRAM/);
    const disabledCount = await picker.locator('option:disabled').count();
    const f16Count = await picker.locator('option[value*="f16"]').count();
    expect(disabledCount).toBe(f16Count);
    await expect(page.getByTestId('webllm-model-details')).toContainText('Calls tools through the text protocol.');
    await expect(page.getByTestId('webllm-cached')).toContainText('None yet.');
    await expect(page.getByRole('button', { name: 'Download' })).toBeEnabled();
  });

  test('the llm worker answers web-llm\'s protocol: reload of an uncached model fails clearly when the network is blocked', async ({ page, context }) => {
    const blocked = await blockModelHosts(context, 'abort');
    await page.goto('/');
    const reply = await page.evaluate(async (url) => {
      const worker = new Worker(url, { type: 'module' });
      const answer = new Promise<{ kind: string; uuid: string; content: unknown }>((resolve) => {
        worker.onmessage = (event) => {
          if (event.data?.kind === 'return' || event.data?.kind === 'throw') resolve(event.data);
        };
        worker.onerror = (event) => resolve({ kind: 'worker-error', uuid: '', content: event.message });
      });
      worker.postMessage({ kind: 'reload', uuid: 'load-1', content: { modelId: ['Qwen3-0.6B-q4f32_1-MLC'] } });
      const result = await answer;
      worker.terminate();
      return result;
    }, `/assets/${workerAsset}`);
    expect(reply.kind).toBe('throw');
    expect(reply.uuid).toBe('load-1');
    expect(String(reply.content)).toMatch(/fetch|network/i);
    expect(blocked.some((url) => url.includes('Qwen3-0.6B-q4f32_1-MLC'))).toBe(true);
  });

  test('Download with the model hosts unreachable ends in a clear error, not a hang', async ({ page, context }) => {
    const blocked = await blockModelHosts(context, 'abort');
    await openInBrowserSettings(page);
    await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue('Qwen3-1.7B-q4f32_1-MLC', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Download' }).click();
    const alert = page.getByTestId('webllm-loader').getByRole('alert');
    await expect(alert).toContainText('Downloading Qwen3-1.7B-q4f32_1-MLC failed.', { timeout: 30_000 });
    await expect(alert).toContainText('huggingface.co');
    await expect(page.getByRole('button', { name: 'Download' })).toBeEnabled();
    // The llm worker's attempts count in the Privacy panel, each once (docs/security.md).
    const byHost = (host: string) => blocked.filter((url) => new URL(url).host === host).length;
    expect(byHost('huggingface.co')).toBeGreaterThan(0);
    const table = page.getByRole('table', { name: 'Network requests this session by host' });
    await expect(table.locator('tr[data-host="huggingface.co"] td').nth(1)).toHaveText(String(byHost('huggingface.co')));
    expect(await page.evaluate(() => globalThis.knackUi!.network.countOf('llm-worker'))).toBeGreaterThanOrEqual(byHost('huggingface.co'));
  });

  test('offline, an uncached model says it must be downloaded first', async ({ page, context }) => {
    await openInBrowserSettings(page);
    await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue('Qwen3-1.7B-q4f32_1-MLC', { timeout: 30_000 });
    await context.setOffline(true);
    await page.getByRole('button', { name: 'Download' }).click();
    await expect(page.getByTestId('webllm-loader').getByRole('alert')).toContainText(
      'Qwen3-1.7B-q4f32_1-MLC is not downloaded yet and this device is offline.',
      { timeout: 30_000 },
    );
    await context.setOffline(false);
  });

  test('a running download shows progress and Cancel, and Cancel returns to Download', async ({ page, context }) => {
    const seen = await blockModelHosts(context, 'hang');
    await openInBrowserSettings(page);
    await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue('Qwen3-1.7B-q4f32_1-MLC', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Download' }).click();
    const loader = page.getByTestId('webllm-loader');
    await expect(loader.getByRole('progressbar', { name: 'Model download progress' })).toBeVisible();
    // Before web-llm's first report the shared bar is indeterminate, with the engine's own phase.
    await expect(loader.getByTestId('progress-bar')).toContainText('Starting the in-browser engine…');
    await expect(loader.getByTestId('progress-counts')).toHaveCount(0);
    await expect(loader.getByRole('button', { name: 'Cancel' })).toBeVisible();
    // The engine really is waiting on the (held) download, not idle.
    await expect.poll(() => seen.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await loader.getByRole('button', { name: 'Cancel' }).click();
    await expect(loader.getByRole('button', { name: 'Download' })).toBeEnabled();
    await expect(loader.getByRole('progressbar')).toHaveCount(0);
    await expect(loader).toContainText('Loading was cancelled.');
  });

  test('the download bar shows web-llm\'s shard counts and megabytes, and Cancel still works', async ({ page, context }) => {
    // The page's real web-llm client talks to a stand-in llm worker that answers `reload` with
    // the progress sentences web-llm's loader sends (no weights can be fetched here), then holds.
    const reports = [
      { progress: 0, timeElapsed: 0, text: 'Start to fetch params' },
      {
        progress: 0.3,
        timeElapsed: 2,
        text: 'Fetching param cache[6/20]: 312MB fetched. 30% completed, 2 secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.',
      },
    ];
    const fakeWorker = `
      const reports = ${JSON.stringify(reports)};
      self.onmessage = (event) => {
        const { kind, uuid } = event.data ?? {};
        if (kind === 'reload') { for (const content of reports) self.postMessage({ kind: 'initProgressCallback', uuid, content }); return; }
        self.postMessage({ kind: 'return', uuid, content: null });
      };`;
    let served = 0;
    await context.route(new RegExp(`/assets/${workerAsset!.replace(/\./g, '\\.')}$`), async (route) => {
      served += 1;
      await route.fulfill({ contentType: 'text/javascript', body: fakeWorker });
    });
    await openInBrowserSettings(page);
    await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue('Qwen3-1.7B-q4f32_1-MLC', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Download' }).click();
    const loader = page.getByTestId('webllm-loader');
    const bar = loader.getByTestId('progress-bar');
    await expect(bar.getByTestId('progress-counts')).toHaveText('6 of 20 shards');
    await expect(bar).toContainText('Downloading the model');
    await expect(bar).toContainText('312 MB fetched');
    const progress = bar.getByRole('progressbar', { name: 'Model download progress' });
    await expect(progress).toHaveAttribute('max', '20');
    await expect(progress).toHaveAttribute('value', '6');
    expect(served).toBe(1);
    await bar.getByRole('button', { name: 'Cancel' }).click();
    await expect(loader.getByTestId('progress-bar')).toHaveCount(0);
    await expect(loader.getByRole('button', { name: 'Download' })).toBeEnabled();
    await expect(loader).toContainText('Loading was cancelled.');
  });
});

// `test.use({ launchOptions })` can't sit in a describe block of a file that also uses the
// default browser, so this test launches its own Chromium without the WebGPU flag.
test('without --enable-unsafe-webgpu: says there is no WebGPU and switches to OpenAI-compatible on request', async ({ playwright, baseURL }) => {
  const browser = await playwright.chromium.launch({
    ...chromiumLaunch,
    args: chromiumLaunch.args.filter((arg) => arg !== '--enable-unsafe-webgpu'),
  });
  try {
    const context = await browser.newContext({ baseURL, serviceWorkers: 'block' });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await openInBrowserSettings(page);
    await expect(page.getByTestId('webgpu-status')).toContainText('found no usable graphics adapter');
    await expect(page.getByTestId('webgpu-status')).toContainText('OpenAI-compatible server such as Ollama');
    await expect(page.getByTestId('no-webgpu')).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Model' })).toHaveCount(0);
    // No point fetching 6 MB of web-llm for a browser that can't run it.
    expect(requested.filter((url) => WEBLLM_CHUNK.test(url))).toEqual([]);

    await page.getByRole('button', { name: 'Use an OpenAI-compatible server' }).click();
    await expect(page.getByRole('combobox', { name: 'Provider' })).toHaveValue('openai-compatible');
    await expect(page.getByLabel('Base URL')).toBeVisible();
  } finally {
    await browser.close();
  }
});
