import type { ChatProvider, ChatRequest, StreamPart, ToolCall } from '../../../src/providers/provider';

/**
 * A scripted in-process provider for unit tests of the agent loop only (browser tests use the
 * scripted HTTP server). Each turn is text and/or tool calls; every request is logged.
 */
export type FakeTurn = { text?: string; toolCalls?: Array<Omit<ToolCall, 'id'> & { id?: string }>; error?: Error; hang?: boolean };

export function fakeProvider(turns: FakeTurn[], nativeTools = true) {
  const requests: ChatRequest[] = [];
  let n = 0;
  const provider: ChatProvider = {
    id: 'fake',
    model: 'fake-model',
    nativeTools,
    async *stream(request): AsyncIterable<StreamPart> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const turn = turns.shift() ?? { text: 'done' };
      if (turn.error) throw turn.error;
      if (turn.hang) {
        yield { type: 'text-delta', text: 'partial ' };
        await new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve(), { once: true }));
        yield { type: 'finish', reason: 'abort' };
        return;
      }
      for (const word of (turn.text ?? '').split(/(?<= )/)) if (word) yield { type: 'text-delta', text: word };
      for (const call of turn.toolCalls ?? []) yield { type: 'tool-call', call: { id: call.id ?? `call_${++n}`, ...call } };
      yield { type: 'finish', reason: turn.toolCalls?.length ? 'tool-calls' : 'stop' };
    },
  };
  return { provider, requests };
}
