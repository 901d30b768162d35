/**
 * A scripted model for benches that need one (bench/README.md): the scripted OpenAI-compatible
 * server from tests/fixtures, answering by what is asked rather than from a queue, so page
 * benches can run chat turns and background reviews in any order.
 *
 * - A review request (its last user message is the review prompt) gets a three-step review:
 *   skills_list, then skill_manage create of a `bench-review-<n>` skill, then a final text.
 *   Each step waits `reviewStepDelayMs` before its first event, so a review stays in flight
 *   long enough to overlap a user turn.
 * - A gate replay (its system prompt is the gate's isolated one, src/gate/replayRequest.ts) waits
 *   `gateReplayDelayMs` and answers with GATE_MARK only when the skill's body (which carries
 *   GATE_SKILL_MARK) is in the request, so a skill whose cases check for GATE_MARK helps on every
 *   case; the fixed delay lets bench/browser/gate.bench.ts subtract the model's own latency.
 * - A chat turn whose user message has TOOL_STORM_MARK gets TOOL_STORM_CALLS tool calls in every
 *   model reply (the chatToolStorm bench in bench/browser/chat.bench.ts: a looping model, until the iteration limit).
 * - Anything else is a chat turn: a short reply streamed word by word.
 */
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type Turn } from '../../tests/fixtures/scriptedServer';

export const REVIEW_MARK = 'You are running in the background after the conversation';
export const BENCH_REPLY = 'Bench reply: first token, then a few more words.';
/** A sentence of the gate's isolated system prompt (GATE_SYSTEM_V1 in src/gate/replayRequest.ts) the chat's never has. */
export const GATE_SYSTEM_SENTENCE = 'No tools are available here';
/** In the bench skill's body; its presence in a request means the with-skill arm. */
export const GATE_SKILL_MARK = 'BENCH-GATE-SKILL';
/** What the with-skill answer says and the bench cases check for. */
export const GATE_MARK = 'GATE-OK';
export const GATE_REPLY_DELAY_MS = 150;
/** In a chat message: every model reply of that turn asks for TOOL_STORM_CALLS tool calls. */
export const TOOL_STORM_MARK = 'bench tool storm';
export const TOOL_STORM_CALLS = 200;

type Message = { role: string; content: string | null };

export async function startBenchModelServer(options: { reviewStepDelayMs?: number; gateReplayDelayMs?: number } = {}): Promise<ScriptedServer> {
  const delay = options.reviewStepDelayMs ?? 400;
  const gateDelay = options.gateReplayDelayMs ?? GATE_REPLY_DELAY_MS;
  let skillCount = 0;
  const server = await startScriptedServer({ cors: 'any' });
  server.setFallback((request: RecordedRequest): Turn => {
    const messages = ((request.body as { messages?: Message[] } | undefined)?.messages ?? []) as Message[];
    const system = messages[0]?.role === 'system' && typeof messages[0].content === 'string' ? messages[0].content : '';
    if (system.includes(GATE_SYSTEM_SENTENCE)) {
      const withSkill = messages.some((m) => typeof m.content === 'string' && m.content.includes(GATE_SKILL_MARK));
      return { text: withSkill ? `Done as the skill says. ${GATE_MARK}` : 'Done.', firstEventDelayMs: gateDelay };
    }
    const reviewAt = messages.findIndex((m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes(REVIEW_MARK));
    if (reviewAt < 0) {
      const lastUser = messages.findLast((m) => m.role === 'user');
      if (typeof lastUser?.content === 'string' && lastUser.content.includes(TOOL_STORM_MARK)) {
        const toolCalls = Array.from({ length: TOOL_STORM_CALLS }, () => ({ name: 'skills_list', arguments: {} }));
        return { text: 'Checking the skills again.', toolCalls };
      }
      return { text: BENCH_REPLY, chunkDelayMs: 2 };
    }
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
