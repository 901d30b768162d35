import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { openApp } from './storageHarness';
import type { ScriptedServer } from '../fixtures/scriptedServer';

// Settings shows each saved provider's chat-model window and where it came from, and keeps the
// user's own figure (docs/context-window.md, "Knowing the window"). The scripted server acts as
// llama.cpp with a 2,048-token window, so it answers GET /props.
test.use({ scriptedOptions: { context: { nCtx: 2048, mode: 'llamacpp' } } });

async function openProviderSettings(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByLabel('Base URL')).toBeVisible();
}

test('a llama.cpp server reports its window; the user can set another, and it is kept across a reload', async ({ page, scripted }) => {
  await openApp(page);
  await openProviderSettings(page);
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'OpenAI-compatible' });
  await page.getByLabel('Base URL').fill(scripted.baseUrl);
  await page.getByLabel('Model').fill('scripted-model');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();

  const now = page.getByTestId('context-window-now');
  await expect(now).toContainText('2,048 tokens — reported by llama.cpp');
  await expect(page.getByLabel('Context window')).toHaveValue('');
  await scripted.waitForRequest((request) => request.path === '/props');

  await page.getByLabel('Context window').fill('8192');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(now).toContainText('8,192 tokens — set by you');

  await page.reload();
  await page.waitForFunction(() => globalThis.knack !== undefined);
  await openProviderSettings(page);
  await expect(page.getByLabel('Context window')).toHaveValue('8192');
  await expect(page.getByTestId('context-window-now')).toContainText('8,192 tokens — set by you');
  // The book behind the panel says the same (the record lives in IndexedDB, not in the page).
  const window = await page.evaluate(async () => {
    const app = globalThis.knack!.app!;
    const providerId = app.settings.get('app').defaultProviderId;
    return (await (await app.modelWindows()).lookup({ providerId, model: 'scripted-model' })).window;
  });
  expect(window).toEqual({ tokens: 8192, source: 'set', detail: 'set in Settings' });

  // Emptied, the field goes back to what the server reports.
  await page.getByLabel('Context window').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('context-window-now')).toContainText('2,048 tokens — reported by llama.cpp');
});

/** Settings → the scripted server as the provider, saved; waits for the window it reports. */
async function saveScriptedProvider(page: Page, scripted: ScriptedServer): Promise<void> {
  await openApp(page);
  await openProviderSettings(page);
  await page.getByLabel('Base URL').fill(scripted.baseUrl);
  await page.getByLabel('Model').fill('scripted-model');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('context-window-now')).toContainText('reported by llama.cpp');
}

test('a figure that is not a window is refused with a reason, and nothing is stored', async ({ page, scripted }) => {
  await saveScriptedProvider(page, scripted);
  await page.getByLabel('Context window').fill('lots');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toContainText('whole number of tokens');
  await expect(page.getByTestId('context-window-now')).toContainText('2,048 tokens — reported by llama.cpp');
  const stored = await page.evaluate(async () => {
    const app = globalThis.knack!.app!;
    const providerId = app.settings.get('app').defaultProviderId;
    return (await (await app.modelWindows()).record({ providerId, model: 'scripted-model' })).set ?? null;
  });
  expect(stored).toBeNull();
});

test('a refusal learned elsewhere shows up in Settings as learned', async ({ page, scripted }) => {
  await saveScriptedProvider(page, scripted);
  await page.evaluate(async () => {
    const app = globalThis.knack!.app!;
    const providerId = app.settings.get('app').defaultProviderId;
    await (await app.modelWindows()).learn({ providerId, model: 'scripted-model' }, 1536, "the server's refusal");
  });
  await expect(page.getByTestId('context-window-now')).toContainText('1,536 tokens — learned from a refusal');
});
