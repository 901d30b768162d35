import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/providers/provider';
import {
  createLineSplitter,
  parseJsonEventStream,
  parseSseStream,
  type JsonEvent,
  type SseEvent,
} from '../../src/providers/sse';

const encoder = new TextEncoder();

/** A byte stream that delivers `bytes` in the given slices. */
function byteStream(slices: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const slice of slices) controller.enqueue(slice);
      controller.close();
    },
  });
}

function sliceEvery(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

async function events(text: string, sliceSize?: number): Promise<SseEvent[]> {
  const bytes = encoder.encode(text);
  return collect(parseSseStream(byteStream(sliceSize ? sliceEvery(bytes, sliceSize) : [bytes])));
}

async function jsonEvents(text: string, sliceSize?: number): Promise<JsonEvent[]> {
  const bytes = encoder.encode(text);
  return collect(parseJsonEventStream(byteStream(sliceSize ? sliceEvery(bytes, sliceSize) : [bytes])));
}

describe('line splitting', () => {
  it('splits on LF, CRLF and CR, including a CRLF pair cut between chunks', async () => {
    const input = new ReadableStream<string>({
      start(controller) {
        for (const piece of ['a\r', '\nb\n', 'c\r', 'd\r\n', '\r', '\n', 'e']) controller.enqueue(piece);
        controller.close();
      },
    });
    const lines = await collect(input.pipeThrough(createLineSplitter()));
    expect(lines).toEqual(['a', 'b', 'c', 'd', '', 'e']);
  });
});

describe('SSE events', () => {
  const body = 'data: {"a":1}\n\n: keep-alive\n\ndata: line one\ndata: line two\n\nevent: ping\ndata: x\nid: 7\n\ndata: [DONE]\n\n';
  const expected: SseEvent[] = [
    { event: 'message', data: '{"a":1}' },
    { event: 'message', data: 'line one\nline two' },
    { event: 'ping', data: 'x', id: '7' },
    { event: 'message', data: '[DONE]' },
  ];

  it('joins multi-line data, skips comments, reads event and id fields', async () => {
    expect(await events(body)).toEqual(expected);
  });

  it('gives the same events when the bytes arrive one at a time', async () => {
    expect(await events(body, 1)).toEqual(expected);
  });

  it('gives the same events with CRLF framing, sliced at every size from 1 to 7', async () => {
    const crlf = body.replace(/\n/g, '\r\n');
    for (let size = 1; size <= 7; size++) expect(await events(crlf, size)).toEqual(expected);
  });

  it('decodes multi-byte UTF-8 split across chunks', async () => {
    const text = 'data: {"t":"héllo 世界 🎉"}\n\n';
    for (let size = 1; size <= 5; size++) {
      const [event] = await events(text, size);
      expect(JSON.parse(event.data)).toEqual({ t: 'héllo 世界 🎉' });
    }
  });

  it('marks an event the body ended inside as unterminated', async () => {
    expect(await events('data: {"a":1}\n\ndata: {"b"')).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'message', data: '{"b"', unterminated: true },
    ]);
  });

  it('does not dispatch a block with no data lines', async () => {
    expect(await events('event: ping\n\n: only a comment\n\n')).toEqual([]);
  });
});

describe('JSON events', () => {
  it('parses payloads and passes [DONE] as a marker, skipping empty data', async () => {
    expect(await jsonEvents('data: {"x":1}\n\ndata:\n\ndata: [DONE]\n\n')).toEqual([
      { type: 'json', value: { x: 1 } },
      { type: 'done' },
    ]);
  });

  it('accepts a complete payload that only lacks the closing blank line', async () => {
    expect(await jsonEvents('data: {"x":1}')).toEqual([{ type: 'json', value: { x: 1 } }]);
  });

  it('turns an event with an error field into ProviderError(stream) with the server message', async () => {
    const stream = parseJsonEventStream(
      byteStream([encoder.encode('data: {"x":1}\n\ndata: {"error":{"code":502,"message":"Provider returned error"}}\n\n')]),
    );
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: { type: 'json', value: { x: 1 } } });
    const error = await reader.read().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('stream');
    expect((error as ProviderError).message).toContain('Provider returned error');
    expect((error as ProviderError).message).toContain('502');
  });

  it('reports a payload cut off mid-JSON as a cut-off stream', async () => {
    const error = await jsonEvents('data: {"x":1}\n\ndata: {"choices":[{"del').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('stream');
    expect((error as ProviderError).message).toMatch(/cut off/);
  });

  it('reports a complete event that is not JSON, quoting it', async () => {
    const error = await jsonEvents('data: <html>oops</html>\n\n').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain('<html>oops</html>');
    expect((error as ProviderError).hint).toMatch(/\/v1/);
  });
});
