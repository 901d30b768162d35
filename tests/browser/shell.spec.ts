import { expect, test, type Page } from '@playwright/test';
import { connectHeldResponder, finishReply } from './replyControl';

// Runs against the production build (see playwright.config.ts); service workers stay blocked here.

async function openSettings(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
}

test.describe('app shell', () => {
  test('every SPEC §19 name that exists at this stage is reachable', async ({ page }) => {
    const cspViolations: string[] = [];
    page.on('console', (entry) => {
      if (entry.type() === 'error' && /Content Security Policy/i.test(entry.text())) cspViolations.push(entry.text());
    });
    await page.goto('/');
    const nav = page.getByRole('navigation', { name: 'Views' });
    for (const name of ['Chat', 'Skills', 'Memory', 'Activity']) {
      await expect(nav.getByRole('link', { name, exact: true })).toBeVisible();
    }
    await expect(page.getByRole('button', { name: 'Settings' })).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'New chat' })).toBeVisible();

    await nav.getByRole('link', { name: 'Skills', exact: true }).click();
    await expect(page.getByRole('button', { name: 'Import skills' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Export all' })).toBeVisible();

    await openSettings(page);
    const provider = page.getByRole('combobox', { name: 'Provider' });
    await expect(provider).toHaveValue('openai-compatible');
    await expect(provider.getByRole('option', { name: 'OpenAI-compatible' })).toHaveCount(1);
    await expect(provider.getByRole('option', { name: 'In-browser (WebGPU)' })).toHaveCount(1);
    await expect(page.getByLabel('Base URL')).toBeVisible();
    await expect(page.getByLabel('API key')).toHaveAttribute('type', 'password');
    await expect(page.getByLabel('Model')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Save' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Request persistent storage' })).toBeVisible();
    // The whole tour ran under index.html's CSP (no inline script) without a violation.
    expect(cspViolations).toEqual([]);
  });

  test('every button, link and form field has an accessible name', async ({ page }) => {
    for (const hash of ['#/chat', '#/skills', '#/memory', '#/activity', '#/settings']) {
      await page.goto(`/${hash}`);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      const unnamed = await page.evaluate(() => {
        const controls = document.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea');
        return [...controls]
          .filter((element) => {
            const labelled =
              element.getAttribute('aria-label') ||
              element.getAttribute('aria-labelledby') ||
              ('labels' in element && (element as HTMLInputElement).labels?.length);
            return !labelled && (element.textContent ?? '').trim() === '';
          })
          .map((element) => element.outerHTML.slice(0, 80));
      });
      expect(unnamed, `controls without a name on ${hash}`).toEqual([]);
    }
  });

  test('Enter sends, Shift+Enter adds a line, the empty state gives way to messages', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Start a conversation' })).toBeVisible();
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('first line');
    await message.press('Shift+Enter');
    await message.pressSequentially('second line');
    await expect(message).toHaveValue('first line\nsecond line');
    await message.press('Enter');

    const messages = page.getByRole('list', { name: 'Messages' });
    await expect(messages.getByRole('listitem')).toHaveCount(1);
    await expect(messages.getByRole('listitem').first()).toContainText('first line\nsecond line');
    await expect(message).toHaveValue('');
    await expect(page.getByRole('heading', { name: 'Start a conversation' })).toHaveCount(0);

    await message.fill('via the button');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(messages.getByRole('listitem')).toHaveCount(2);

    // Blank input sends nothing.
    await message.fill('   ');
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await message.press('Enter');
    await expect(messages.getByRole('listitem')).toHaveCount(2);

    await page.getByRole('button', { name: 'New chat' }).click();
    await expect(page.getByRole('heading', { name: 'Start a conversation' })).toBeVisible();
  });

  test('while a reply runs: Stop works, Send waits, the live region announces start and end only', async ({ page }) => {
    await page.goto('/');
    await connectHeldResponder(page);
    const message = page.getByRole('textbox', { name: 'Message' });
    const live = page.locator('[aria-live="polite"]');
    const stop = page.getByRole('button', { name: 'Stop' });
    const items = page.getByRole('list', { name: 'Messages' }).getByRole('listitem');

    await message.fill('first question');
    await message.press('Enter');
    await expect(items.nth(1)).toContainText('Working on it');
    await expect(stop).toBeEnabled();
    await expect(live).toHaveText('Knack is replying.');
    // The streamed text never goes into the live region.
    await expect(live).not.toContainText('Working on it');
    // A second message cannot start while the first reply runs.
    await message.fill('too soon');
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await message.press('Enter');
    await expect(items).toHaveCount(2);
    await expect(message).toHaveValue('too soon');

    await finishReply(page);
    await expect(items.nth(1)).toContainText('Working on it — done.');
    await expect(live).toHaveText('Reply finished.');
    await expect(stop).toBeDisabled();

    // Esc stops a running reply, and the reply is marked as stopped.
    await message.press('Enter');
    await expect(items).toHaveCount(4);
    await expect(stop).toBeEnabled();
    await message.press('Escape');
    await expect(stop).toBeDisabled();
    await expect(items.nth(3)).toContainText('Stopped');
    await expect(live).toHaveText('Reply stopped.');

    // And the Stop button does the same.
    await message.fill('third');
    await message.press('Enter');
    await expect(stop).toBeEnabled();
    await stop.click();
    await expect(items.nth(5)).toContainText('Stopped');
  });

  test('navigation uses hash routes and back/forward', async ({ page }) => {
    await page.goto('/');
    const nav = page.getByRole('navigation', { name: 'Views' });
    const views = [
      ['Skills', '#/skills'],
      ['Memory', '#/memory'],
      ['Activity', '#/activity'],
    ] as const;
    for (const [name, hash] of views) {
      await nav.getByRole('link', { name, exact: true }).click();
      await expect(page).toHaveURL(new RegExp(`${hash}$`));
      await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
      await expect(nav.getByRole('link', { name, exact: true })).toHaveAttribute('aria-current', 'page');
      // Focus moves into the new view for keyboard and screen-reader users.
      await expect(page.getByRole('heading', { level: 1, name })).toBeFocused();
    }
    await openSettings(page);
    await expect(page).toHaveURL(/#\/settings$/);

    await page.goBack();
    await expect(page.getByRole('heading', { level: 1, name: 'Activity' })).toBeVisible();
    await page.goBack();
    await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
    await page.goForward();
    await expect(page.getByRole('heading', { level: 1, name: 'Activity' })).toBeVisible();

    // A deep link opens its view directly; an unknown one falls back to chat.
    await page.goto('/#/memory');
    await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
    await page.goto('/#/nowhere');
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  });

  test('settings save and survive a reload', async ({ page }) => {
    await page.goto('/#/settings');
    const preset = page.getByRole('combobox', { name: 'Preset' });
    await preset.selectOption({ label: 'LM Studio' });
    await expect(page.getByLabel('Base URL')).toHaveValue('http://localhost:1234/v1');

    await page.getByLabel('Base URL').fill('http://gpu-box.local:8080/v1');
    await expect(preset).toHaveValue('custom');
    await page.getByLabel('API key').fill('sk-test-123');
    await page.getByLabel('Model').fill('qwen3:4b');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Saved.')).toBeVisible();

    await page.reload();
    await expect(page.getByLabel('Base URL')).toHaveValue('http://gpu-box.local:8080/v1');
    await expect(page.getByLabel('API key')).toHaveValue('sk-test-123');
    await expect(page.getByLabel('Model')).toHaveValue('qwen3:4b');
    await expect(page.getByRole('combobox', { name: 'Preset' })).toHaveValue('custom');

    // Choosing the in-browser provider persists too, and hides the HTTP-only fields.
    await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'In-browser (WebGPU)' });
    await expect(page.getByLabel('Base URL')).toHaveCount(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Saved.')).toBeVisible();
    await page.reload();
    await expect(page.getByRole('combobox', { name: 'Provider' })).toHaveValue('webgpu');
  });

  test('an unusable Base URL is refused with a message and not saved', async ({ page }) => {
    await page.goto('/#/settings');
    await page.getByLabel('Base URL').fill('localhost:11434');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByLabel('Base URL')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText('Enter a full address starting with http:// or https://.')).toBeVisible();
    await page.reload();
    await expect(page.getByLabel('Base URL')).toHaveValue('http://localhost:11434/v1');
  });

  test('the storage panel shows usage, quota and persistence', async ({ page }) => {
    await page.goto('/#/settings');
    await expect(page.getByTestId('storage-usage')).toHaveText(/\d+(\.\d)? (B|KB|MB|GB|TB) of \d+(\.\d)? (KB|MB|GB|TB)/);
    // Headless Chromium never grants persistence, so the panel must say no and offer the request.
    await expect(page.getByTestId('storage-persisted')).toHaveText(/^No:/);
    await page.getByRole('button', { name: 'Request persistent storage' }).click();
    await expect(page.getByText(/The browser (declined|will keep)/)).toBeVisible();
  });

  test('at 360×740 nothing scrolls sideways and the tabs sit at the bottom', async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    for (const hash of ['#/chat', '#/skills', '#/memory', '#/activity', '#/settings']) {
      await page.goto(`/${hash}`);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth, `horizontal overflow on ${hash}`).toBeLessThanOrEqual(360);
    }
    await page.goto('/');
    const nav = await page.getByRole('navigation', { name: 'Views' }).boundingBox();
    expect(nav).not.toBeNull();
    expect(nav!.y + nav!.height).toBeGreaterThan(740 - 2);
    expect(nav!.width).toBeGreaterThan(350);
    // The composer and its buttons stay on screen above the tabs.
    const send = await page.getByRole('button', { name: 'Send' }).boundingBox();
    expect(send!.x + send!.width).toBeLessThanOrEqual(360);
    expect(send!.y + send!.height).toBeLessThanOrEqual(nav!.y);
  });

  test('keyboard focus is visible', async ({ page }) => {
    await page.goto('/');
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => {
      const focused = document.activeElement as HTMLElement;
      const style = getComputedStyle(focused);
      return { tag: focused.tagName, style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(outline.tag).not.toBe('BODY');
    expect(outline.style).not.toBe('none');
    expect(outline.width).toBeGreaterThan(0);
  });
});

test.describe('themes', () => {
  function luminance(rgb: string): number {
    const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  }

  const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

  test.describe('with a dark system scheme', () => {
    test.use({ colorScheme: 'dark' });

    test('the app is dark, and the Light choice overrides it', async ({ page }) => {
      await page.goto('/');
      expect(luminance(await background(page))).toBeLessThan(0.2);
      await page.goto('/#/settings');
      await page.getByRole('combobox', { name: 'Theme' }).selectOption({ label: 'Light' });
      await expect.poll(async () => luminance(await background(page))).toBeGreaterThan(0.8);
      await page.reload();
      await expect.poll(async () => luminance(await background(page))).toBeGreaterThan(0.8);
    });
  });

  test.describe('with a light system scheme', () => {
    test.use({ colorScheme: 'light' });

    test('the app is light, and the Dark choice overrides it', async ({ page }) => {
      await page.goto('/');
      expect(luminance(await background(page))).toBeGreaterThan(0.8);
      await page.goto('/#/settings');
      await page.getByRole('combobox', { name: 'Theme' }).selectOption({ label: 'Dark' });
      await expect.poll(async () => luminance(await background(page))).toBeLessThan(0.2);
    });
  });
});
