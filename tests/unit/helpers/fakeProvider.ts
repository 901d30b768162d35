import type { ChatProvider, ChatRequest, FinishReason, StreamPart, ToolCall } from '../../../src/providers/provider';

/**
 * A scripted in-process provider for unit tests of the agent loop only (browser tests use the
 * scripted HTTP server). Each turn is text and/or tool calls; every request is logged.
 *
 * A `hang` turn streams "partial " and then waits for its request's abort. Tests that stop a
 * hanging turn wait for the signal instead of a fixed sleep:
 *
 *   const fake = fakeProvider([{ hang: true }]);
 *   const pending = runAgentTurn({ ..., provider: fake.provider, signal });
 *   await fake.hanging;   // the partial text was taken and the stream now waits for abort
 *   controller.abort();
 *
 * `whenCalled(n)` resolves with the request log once `n` requests have been made.
 * `reasoning` streams as reasoning deltas before the text; `finish` overrides the finish reason
 * (e.g. 'cut-off' for a stream that ended without one).
 */
export type FakeTurn = {
  text?: string;
  reasoning?: string;
  toolCalls?: Array<Omit<ToolCall, 'id'> & { id?: string }>;
  error?: Error;
  hang?: boolean;
  finish?: FinishReason;
};

export function fakeProvider(turns: FakeTurn[], nativeTools = true) {
  const requests: ChatRequest[] = [];
  const waiters = new Set<() => void>();
  let hangs = 0;
  let n = 0;
  const changed = () => {
    for (const waiter of [...waiters]) waiter();
  };
  /** Resolves once `check` holds, re-checked after every request and every hang. */
  const until = <T>(check: () => T | undefined): Promise<T> =>
    new Promise((resolve) => {
      const waiter = () => {
        const value = check();
        if (value === undefined) return;
        waiters.delete(waiter);
        resolve(value);
      };
      waiters.add(waiter);
      waiter();
    });
  const whenHanging = (count = 1): Promise<void> => until(() => (hangs >= count ? true : undefined)).then(() => undefined);
  const provider: ChatProvider = {
    id: 'fake',
    model: 'fake-model',
    nativeTools,
    async *stream(request): AsyncIterable<StreamPart> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      changed();
      const turn = turns.shift() ?? { text: 'done' };
      if (turn.error) throw turn.error;
      if (turn.hang) {
        yield { type: 'text-delta', text: 'partial ' };
        // Reached only when the consumer asks for the next part: it has taken the partial text.
        const aborted = new Promise<void>((resolve) => {
          if (request.signal?.aborted) resolve();
          else request.signal?.addEventListener('abort', () => resolve(), { once: true });
        });
        hangs++;
        changed();
        await aborted;
        yield { type: 'finish', reason: 'abort' };
        return;
      }
      if (turn.reasoning) yield { type: 'reasoning-delta', text: turn.reasoning };
      for (const word of (turn.text ?? '').split(/(?<= )/)) if (word) yield { type: 'text-delta', text: word };
      for (const call of turn.toolCalls ?? []) yield { type: 'tool-call', call: { id: call.id ?? `call_${++n}`, ...call } };
      yield { type: 'finish', reason: turn.finish ?? (turn.toolCalls?.length ? 'tool-calls' : 'stop') };
    },
  };
  return {
    provider,
    requests,
    /** Resolves when the first `hang` turn has streamed its partial text and waits for abort. */
    get hanging(): Promise<void> {
      return whenHanging(1);
    },
    /** Resolves when `count` hang turns have reached their wait for abort. */
    whenHanging,
    /** Resolves with the request log once at least `count` requests were made. */
    whenCalled: (count: number): Promise<ChatRequest[]> => until(() => (requests.length >= count ? requests : undefined)),
  };
}
