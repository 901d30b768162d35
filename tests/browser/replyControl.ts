import type { Page } from '@playwright/test';

/**
 * Connects a stand-in responder through the UI's console handle (`knackUi`): it yields a
 * first chunk, then holds the reply open until `finishReply(page)` or Stop. Lets browser
 * tests put the app in the "generating" state before the real agent exists.
 */
export async function connectHeldResponder(page: Page): Promise<void> {
  await page.waitForFunction(() => globalThis.knackUi !== undefined);
  await page.evaluate(() => {
    const holder = window as unknown as { finishReply?: () => void };
    globalThis.knackUi!.chat.connect(async function* (_history, signal) {
      yield 'Working on it';
      await new Promise<void>((resolve) => {
        holder.finishReply = resolve;
        signal.addEventListener('abort', () => resolve());
      });
      if (!signal.aborted) yield ' — done.';
    });
  });
}

export async function finishReply(page: Page): Promise<void> {
  await page.evaluate(() => (window as unknown as { finishReply?: () => void }).finishReply?.());
}
