/**
 * A scripted model for benches that need one (bench/README.md): the scripted OpenAI-compatible
 * server from tests/fixtures, answering by what is asked rather than from a queue, so page
 * benches can run chat turns and background reviews in any order.
 *
 * - A review request (its last user message is the review prompt) gets a three-step review:
 *   skills_list, then skill_manage create of a `bench-review-<n>` skill, then a final text.
 *   Each step waits `reviewStepDelayMs` before its first event, so a review stays in flight
 *   long enough to overlap a user turn.
 * - Anything else is a chat turn: a short reply streamed word by word.
 */
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type Turn } from '../../tests/fixtures/scriptedServer';

export const REVIEW_MARK = 'You are running in the background after the conversation';
export const BENCH_REPLY = 'Bench reply: first token, then a few more words.';

type Message = { role: string; content: string | null };

export async function startBenchModelServer(options: { reviewStepDelayMs?: number } = {}): Promise<ScriptedServer> {
  const delay = options.reviewStepDelayMs ?? 400;
  let skillCount = 0;
  const server = await startScriptedServer({ cors: 'any' });
  server.setFallback((request: RecordedRequest): Turn => {
    const messages = ((request.body as { messages?: Message[] } | undefined)?.messages ?? []) as Message[];
    const reviewAt = messages.findIndex((m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes(REVIEW_MARK));
    if (reviewAt < 0) return { text: BENCH_REPLY, chunkDelayMs: 2 };
    const step = messages.slice(reviewAt + 1).filter((m) => m.role === 'assistant').length;
    if (step === 0) return { toolCalls: [{ name: 'skills_list', arguments: {} }], firstEventDelayMs: delay };
    if (step === 1) {
      skillCount += 1;
      const name = `bench-review-${skillCount}`;
      const content = `---\nname: ${name}\ndescription: Use when benchmarking background reviews.\n---\n\n# ${name}\n\n1. Measure.\n`;
      return { toolCalls: [{ name: 'skill_manage', arguments: { action: 'create', name, content } }], firstEventDelayMs: delay };
    }
    return { text: 'Saved one bench skill.', firstEventDelayMs: delay, chunkDelayMs: 5 };
  });
  return server;
}
