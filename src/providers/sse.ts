/**
 * Server-sent events as a stream pipeline: bytes → text → lines → events → JSON chunks.
 *
 * Each stage is a small TransformStream so it can be tested alone and reused (the chat
 * provider and any future streaming source). Only what OpenAI-compatible servers send is
 * handled: `data:` (several lines join with "\n"), `event:`, `id:`, comment lines starting
 * with ":" (OpenRouter's keep-alives), and LF, CRLF or CR line ends — split anywhere, since
 * the network cuts bytes wherever it likes (docs/providers.md).
 */
import { ProviderError } from './provider';

export interface SseEvent {
  /** The `event:` field, or "message" when none was given. */
  event: string;
  /** Every `data:` line of the event, joined with "\n". */
  data: string;
  id?: string;
  /**
   * True when the body ended before the blank line that closes this event. A complete JSON
   * payload is still usable; a half one means the stream was cut off.
   */
  unterminated?: boolean;
}

/** Splits text into lines on LF, CRLF or CR, even when a CRLF pair straddles two chunks. */
export function createLineSplitter(): TransformStream<string, string> {
  let pending = '';
  // A chunk that ended in "\r" already closed its line; a "\n" opening the next chunk is
  // the second half of that CRLF, not an empty line.
  let swallowLeadingLf = false;
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      let text = chunk;
      if (swallowLeadingLf && text.startsWith('\n')) text = text.slice(1);
      swallowLeadingLf = false;
      if (text === '') return;
      text = pending + text;
      let start = 0;
      for (let i = 0; i < text.length; i++) {
        const char = text[i];
        if (char !== '\n' && char !== '\r') continue;
        controller.enqueue(text.slice(start, i));
        if (char === '\r') {
          if (i + 1 < text.length) {
            if (text[i + 1] === '\n') i++;
          } else {
            swallowLeadingLf = true;
          }
        }
        start = i + 1;
      }
      pending = text.slice(start);
    },
    flush(controller) {
      if (pending !== '') controller.enqueue(pending);
    },
  });
}

/** Groups lines into events; a blank line dispatches, comment lines are dropped. */
export function createEventParser(): TransformStream<string, SseEvent> {
  let dataLines: string[] = [];
  let eventName = '';
  let id: string | undefined;
  let hasFields = false;

  const reset = () => {
    dataLines = [];
    eventName = '';
    id = undefined;
    hasFields = false;
  };
  const current = (): SseEvent => ({
    event: eventName || 'message',
    data: dataLines.join('\n'),
    ...(id !== undefined ? { id } : {}),
  });

  return new TransformStream<string, SseEvent>({
    transform(line, controller) {
      if (line === '') {
        // Per the SSE rules an event without data is not dispatched (e.g. a lone `event:`).
        if (dataLines.length > 0) controller.enqueue(current());
        reset();
        return;
      }
      if (line.startsWith(':')) return;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      hasFields = true;
      if (field === 'data') dataLines.push(value);
      else if (field === 'event') eventName = value;
      else if (field === 'id') id = value;
      // `retry:` and unknown fields mean nothing to a one-shot fetch stream.
    },
    flush(controller) {
      if (hasFields && dataLines.length > 0) controller.enqueue({ ...current(), unterminated: true });
    },
  });
}

/** Bytes of an SSE body to events. UTF-8 sequences split across chunks decode correctly. */
export function parseSseStream(body: ReadableStream<Uint8Array>): ReadableStream<SseEvent> {
  return body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(createLineSplitter())
    .pipeThrough(createEventParser());
}

/** One decoded `data:` payload of an OpenAI-style stream, or the `[DONE]` marker. */
export type JsonEvent = { type: 'json'; value: unknown } | { type: 'done' };

function streamErrorMessage(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error !== null && typeof error === 'object') {
    const fields = error as Record<string, unknown>;
    const message = typeof fields.message === 'string' ? fields.message : JSON.stringify(error);
    const code = fields.code ?? fields.type;
    return code !== undefined && code !== null && !message.includes(String(code)) ? `${message} (${String(code)})` : message;
  }
  return String(error);
}

function preview(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/**
 * Events to JSON payloads. `[DONE]` passes as a marker; empty `data:` lines are keep-alives.
 * Errors (thrown as ProviderError kind 'stream'):
 * - an event whose payload has an `error` field (OpenRouter reports mid-stream failures so);
 * - a payload that is not JSON, or a half payload at the end (the stream was cut off).
 */
export function createJsonEventParser(): TransformStream<SseEvent, JsonEvent> {
  return new TransformStream<SseEvent, JsonEvent>({
    transform(event, controller) {
      const data = event.data.trim();
      if (data === '') return;
      if (data === '[DONE]') {
        controller.enqueue({ type: 'done' });
        return;
      }
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch {
        if (event.unterminated) {
          throw new ProviderError(
            'stream',
            'The reply was cut off in the middle of a message.',
            'The server or the connection stopped mid-reply. Try again; if it keeps happening, check the server log.',
          );
        }
        throw new ProviderError(
          'stream',
          `The server sent something that is not JSON in its event stream: ${preview(data)}`,
          'Check that the Base URL points at an OpenAI-compatible API (it usually ends in /v1).',
        );
      }
      if (value !== null && typeof value === 'object' && 'error' in value && (value as { error: unknown }).error) {
        const message = streamErrorMessage((value as { error: unknown }).error);
        throw new ProviderError('stream', `The model stopped with an error: ${message}`, 'Try again, or pick another model.');
      }
      controller.enqueue({ type: 'json', value });
    },
  });
}

/** The whole pipeline for an OpenAI-compatible streaming body. */
export function parseJsonEventStream(body: ReadableStream<Uint8Array>): ReadableStream<JsonEvent> {
  return parseSseStream(body).pipeThrough(createJsonEventParser());
}
