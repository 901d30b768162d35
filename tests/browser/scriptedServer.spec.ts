import { test, expect } from './fixtures';

// The scripted server as a real browser sees it: a cross-origin fetch from the app's origin,
// with a CORS preflight, a streamed body, and Stop (abort). Provider tests build on this.

test.beforeEach(async ({ page }) => {
  await page.goto('/');
});

test('Chromium streams a scripted reply cross-origin, after a preflight', async ({ page, scripted }) => {
  scripted.script({ text: 'Hello from the scripted model', chunkDelayMs: 5 });
  const text = await page.evaluate(async (baseUrl) => {
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'scripted-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let raw = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
    }
    return raw
      .split('\n\n')
      .filter((block) => block.startsWith('data: {'))
      .map((block) => JSON.parse(block.slice(6)).choices[0]?.delta?.content ?? '')
      .join('');
  }, scripted.baseUrl);
  expect(text).toBe('Hello from the scripted model');
  const [preflight, post] = scripted.requests;
  expect(preflight.method).toBe('OPTIONS');
  expect(preflight.headers['access-control-request-headers']).toContain('authorization');
  expect(post.method).toBe('POST');
  expect(post.headers.origin).toBe(new URL(page.url()).origin);
  expect(post.body.stream).toBe(true);
});

test.describe('with CORS refused', () => {
  test.use({ scriptedOptions: { cors: 'refuse' } });

  test('the page sees a network TypeError, as with LM Studio before CORS is enabled', async ({ page, scripted }) => {
    const error = await page.evaluate(async (baseUrl) => {
      try {
        await fetch(`${baseUrl}/models`);
        return 'no error';
      } catch (caught) {
        return `${(caught as Error).name}: ${(caught as Error).message}`;
      }
    }, scripted.baseUrl);
    expect(error).toMatch(/^TypeError: /);
    // A simple GET needs no preflight: the server answered, the browser hid the answer.
    expect(scripted.requests.map((request) => request.served)).toEqual(['models']);
  });
});

test('aborting the fetch (Stop) is logged as a client abort', async ({ page, scripted }) => {
  scripted.script({ text: 'start ', quirks: { endless: { text: 'more ', intervalMs: 10 } } });
  const pieces = await page.evaluate(async (baseUrl) => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'scripted-model', stream: true, messages: [] }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let reads = 0;
    while (reads < 3) {
      await reader.read();
      reads++;
    }
    controller.abort();
    return reads;
  }, scripted.baseUrl);
  expect(pieces).toBe(3);
  const aborted = await scripted.waitForAbort();
  expect(aborted.path).toBe('/v1/chat/completions');
  expect(aborted.firstByteAt).toBeDefined();
});
