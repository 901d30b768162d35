/**
 * The in-browser model's window (docs/context-window.md): the model record's
 * context_window_size is shown as reported, and a larger figure set by the user reaches
 * web-llm's engine as `context_window_size` when the model loads. No weights can be
 * downloaded here, so the load itself fails after the engine received its options.
 */
import { expect, test } from '@playwright/test';

const MODEL_HOSTS = /huggingface\.co|githubusercontent\.com|hf\.co/;

test('web-llm: the record reports 4,096; a window set in Settings is sent to the engine as context_window_size', async ({ page, context }) => {
  await context.route(MODEL_HOSTS, (route) => route.abort('internetdisconnected'));
  // Records what the page's web-llm client posts to the llm worker (its `reload` carries the chat options).
  await page.addInitScript(() => {
    const posted: unknown[] = [];
    (globalThis as unknown as { knackReloads: unknown[] }).knackReloads = posted;
    const original = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
      if (message && typeof message === 'object' && (message as { kind?: unknown }).kind === 'reload') posted.push(structuredClone(message));
      return (original as (...args: unknown[]) => void).call(this, message, ...rest);
    } as typeof Worker.prototype.postMessage;
  });
  await page.goto('/#/settings');
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'In-browser (WebGPU)' });
  await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue('Qwen3-1.7B-q4f32_1-MLC', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();

  const now = page.getByTestId('context-window-now');
  await expect(now).toContainText("4,096 tokens — reported by web-llm's model record", { timeout: 30_000 });
  await expect(now).toContainText('needs more GPU memory');

  await page.getByLabel('Context window').fill('8192');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(now).toContainText('8,192 tokens — set by you');

  await page.getByRole('button', { name: 'Download' }).click();
  await expect(page.getByTestId('webllm-loader').getByRole('alert')).toBeVisible({ timeout: 30_000 });
  const reloads = await page.evaluate(() => (globalThis as unknown as { knackReloads: Array<{ content: { modelId: string[]; chatOpts?: Array<{ context_window_size?: number }> } }> }).knackReloads);
  expect(reloads.length).toBeGreaterThan(0);
  expect(reloads[0]!.content.modelId).toEqual(['Qwen3-1.7B-q4f32_1-MLC']);
  expect(reloads[0]!.content.chatOpts?.[0]).toMatchObject({ context_window_size: 8192 });
});
