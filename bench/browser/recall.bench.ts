/**
 * Recall (issue 24, docs/chat.md "Session search", docs/learning-loop.md "Memory consolidation"):
 *
 * - `sessionSearchRecallTokens`: the tokens `session_search` puts into the chat request for a
 *   100-session history (the synthetic corpus of sessionCorpus.ts, 50 messages a session), with
 *   snippets and with summaries, over the corpus's queries, counted with the app's estimator;
 *   plus what the summaries cost on the background model (requests and prompt tokens a search).
 *   The summariser is a stand-in provider answering three short lines (about what the summary
 *   prompt's "at most five short lines" yields), so the figure is the result's shape, not a
 *   model's wording; each request is fitted to a 4,096-token window as in the app.
 * - `memoryConsolidation`: one consolidation of a MEMORY.md past 80 % through the review
 *   worker's handler run in the page (real OPFS, the lock, the check, the compare-and-swap
 *   write), with a stand-in model that answers at once: the requests it makes and the time it
 *   takes besides the model. MEMORY.md is put back afterwards.
 */
import { MemorySessionBackend } from '../../src/sessions/memorySessionBackend';
import { MemorySearchIndexPersistence } from '../../src/sessions/searchIndexPersistence';
import { SessionSearch } from '../../src/sessions/sessionSearch';
import { runSessionSearch } from '../../src/sessions/sessionSearchTool';
import { SummaryCache, summariseSessions } from '../../src/sessions/sessionSummary';
import { estimateMessageTokens, estimateTextTokens } from '../../src/providers/tokenEstimate';
import type { ChatMessage, ChatProvider, StreamPart } from '../../src/providers/provider';
import { createWriteContext } from '../../src/tools/writeContext';
import { createReviewWorkerHandler } from '../../src/app/reviewWorkerHandler';
import type { AppServices } from '../../src/app/appServices';
import { joinEntries } from '../../src/memory/memoryEntries';
import { buildCorpus } from './sessionCorpus';
import { summarize } from './stats';
import type { BrowserBench } from './types';

const WINDOW_TOKENS = 4096;

/** A provider that answers every request with `answer(messages)` and counts what it was sent. */
function standIn(answer: (messages: ChatMessage[]) => string) {
  const sent: ChatMessage[][] = [];
  const provider: ChatProvider = {
    id: 'bench-stand-in',
    model: 'bench-stand-in',
    nativeTools: true,
    async *stream(request): AsyncIterable<StreamPart> {
      sent.push(request.messages);
      yield { type: 'text-delta', text: answer(request.messages) };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return { provider, sent };
}

const requestTokens = (messages: ChatMessage[]) => messages.reduce((sum, message) => sum + estimateMessageTokens(message), 3);

export const benches: BrowserBench[] = [
  {
    name: 'sessionSearchRecallTokens',
    async run() {
      const corpus = buildCorpus(5_000, { perSession: 50, queryCount: 60 });
      const backend = new MemorySessionBackend();
      for (const session of corpus.sessions) await backend.putSession(session);
      const bySession = new Map<string, typeof corpus.messages>();
      for (const message of corpus.messages) bySession.set(message.sessionId, [...(bySession.get(message.sessionId) ?? []), message]);
      for (const [sessionId, messages] of bySession) await backend.appendMessages(sessionId, () => messages);
      const search = new SessionSearch({ backend, persistence: new MemorySearchIndexPersistence() });
      await search.ensureLoaded();

      const fits = (messages: ChatMessage[], maxTokens: number) => (requestTokens(messages) + maxTokens <= WINDOW_TOKENS * 0.96 ? null : 'too long');
      const model = standIn(() => '- The user asked about this topic twice.\n- The answer used the settings shown earlier.\n- It was settled on 2026-01-02.');
      const summaries = {
        enabled: () => true,
        cache: new SummaryCache(),
        messagesOf: async (id: string) => (await backend.getMessages(id)).map((m) => ({ role: m.role, content: m.content })),
        summarise: async (job: Parameters<typeof summariseSessions>[1]) => ({ kind: 'done' as const, ...(await summariseSessions({ provider: model.provider, fits }, job)) }),
      };
      const snippetTokens: number[] = [];
      const summaryTokens: number[] = [];
      const backgroundRequests: number[] = [];
      const backgroundTokens: number[] = [];
      for (const query of corpus.queries) {
        const context = createWriteContext('foreground', 'bench-now');
        const snippets = await runSessionSearch({ search }, { query }, context);
        const before = model.sent.length;
        const summarised = await runSessionSearch({ search, summaries: { ...summaries, cache: new SummaryCache() } }, { query }, context);
        if (!snippets.success || !summarised.success || (snippets.count as number) === 0) continue;
        snippetTokens.push(estimateTextTokens(JSON.stringify(snippets)));
        summaryTokens.push(estimateTextTokens(JSON.stringify(summarised)));
        const asked = model.sent.slice(before);
        backgroundRequests.push(asked.length);
        backgroundTokens.push(asked.reduce((sum, messages) => sum + requestTokens(messages), 0));
      }
      search.dispose();
      if (snippetTokens.length === 0) throw new Error('no query found anything; the bench measured nothing');
      return {
        sessions: corpus.sessions.length,
        searches: snippetTokens.length,
        snippetsResultTokens: summarize(snippetTokens),
        summariesResultTokens: summarize(summaryTokens),
        backgroundRequestsPerSearch: summarize(backgroundRequests),
        backgroundPromptTokensPerSearch: summarize(backgroundTokens),
        window: WINDOW_TOKENS,
      };
    },
  },
  {
    name: 'memoryConsolidation',
    async run(context) {
      const knack = await context.knack();
      const app = (knack as unknown as { app?: AppServices }).app;
      if (!app) throw new Error('knack.app missing');
      const saved = await app.storage.files.readText('memories/MEMORY.md');
      const entries = [
        'User deploys with Docker Compose on the host atlas.lan.',
        'Docker Compose file for atlas.lan lives at ~/infra/compose.yml.',
        ...Array.from({ length: 17 }, (_, i) => `Project ${i + 1}: the weekly report for team ${i + 1} is due on Friday at 16:00, sent to lead${i + 1}@example.org.`),
      ];
      const merged = 'User deploys with Docker Compose on the host atlas.lan; the file lives at ~/infra/compose.yml.';
      const model = standIn(() => JSON.stringify({ merges: [{ entries: [1, 2], merged }] }));
      const handler = createReviewWorkerHandler(async () => app, { createProvider: async () => model.provider });
      const times: number[] = [];
      let requests = 0;
      try {
        for (let run = 0; run < 10; run++) {
          await app.storage.files.write('memories/MEMORY.md', joinEntries(entries));
          const before = model.sent.length;
          const started = performance.now();
          const outcome = await handler.consolidateMemory({ runId: `bench-${run}`, target: 'memory' });
          times.push(performance.now() - started);
          if (outcome.kind !== 'done') throw new Error(`consolidation ${outcome.kind}: ${'reason' in outcome ? outcome.reason : ''}`);
          requests = model.sent.length - before;
        }
      } finally {
        if (saved === null) await app.storage.files.delete('memories/MEMORY.md');
        else await app.storage.files.write('memories/MEMORY.md', saved);
      }
      return { requestsPerConsolidation: requests, promptTokens: requestTokens(model.sent[0]!), msBesidesModel: summarize(times) };
    },
  },
];
