/**
 * Entry of the in-page chat driver for the learning tests (tests/browser/learning*.spec.ts).
 * It is bundled with Vite (IIFE, as provider.spec.ts does) and evaluated in the app's page.
 *
 * Until the chat view drives `ChatController` itself, this builds one the way the app will:
 * the app's own session store, memory, skills and session-search tools (`globalThis.knack`),
 * the session prompt builder, a provider on the scripted server, and — the point of these
 * tests — the app's learning seam `knackUi.learning`, so reviews, the worker, the activity
 * store and the views are the real ones. Publishes `globalThis.knackLearningHarness`.
 */
import { ChatController } from '../../src/agent/chatSession';
import { sessionPromptBuilder } from '../../src/agent/sessionPrompt';
import { defaultIntervals } from '../../src/agent/learningCounters';
import { createProvider } from '../../src/providers/createProvider';
import { ToolRegistry } from '../../src/tools/toolRegistry';
import type { KnackUiHandle } from '../../src/ui/state/consoleHandle';
import type { KnackHandle } from '../../src/app/boot';

export interface HarnessChat {
  baseUrl: string;
  model: string;
}

const chats = new Map<string, ChatController>();

function handles(): { k: KnackHandle; ui: KnackUiHandle } {
  const g = globalThis as unknown as { knack?: KnackHandle; knackUi?: KnackUiHandle };
  if (!g.knack?.skills || !g.knack.memory || !g.knack.sessions || !g.knackUi) throw new Error('The app has not started its services yet.');
  return { k: g.knack, ui: g.knackUi };
}

/** A new chat (a session starts with its first message); returns a handle id. */
function newChat(options: HarnessChat): string {
  const { k, ui } = handles();
  const skills = k.skills!;
  const memory = k.memory!;
  const sessions = k.sessions!;
  const registry = new ToolRegistry([memory.tool, ...skills.registry.definitions(), sessions.tool]);
  const controller = new ChatController({
    store: sessions.store,
    registry,
    buildSystemPrompt: sessionPromptBuilder({
      registry,
      index: skills.index,
      skillSettings: () => skills.settings.get(),
      memorySnapshot: async () => (await memory.snapshot()).text,
    }),
    provider: () => createProvider({ kind: 'openai-compatible', baseUrl: options.baseUrl, apiKey: '', model: options.model, toolProtocol: 'native' }),
    intervals: () => defaultIntervals,
    learning: ui.learning,
  });
  const id = crypto.randomUUID();
  chats.set(id, controller);
  return id;
}

function chat(id: string): ChatController {
  const controller = chats.get(id);
  if (!controller) throw new Error(`No harness chat ${id}`);
  return controller;
}

/**
 * Sends a message and resolves when the reply is done. `sentAt` is taken just before the send,
 * in epoch milliseconds comparable with the scripted server's `receivedAt`.
 */
async function send(id: string, text: string): Promise<{ sentAt: number; sessionId: string | null; doneAt: number }> {
  const controller = chat(id);
  const sentAt = performance.timeOrigin + performance.now();
  await controller.send(text);
  return { sentAt, sessionId: controller.sessionId, doneAt: performance.timeOrigin + performance.now() };
}

/** Starts a send without waiting for the reply (the reply is awaited with `settle`). */
function startSend(id: string, text: string): { sentAt: number } {
  const controller = chat(id);
  const sentAt = performance.timeOrigin + performance.now();
  pendingSends.set(id, controller.send(text));
  return { sentAt };
}

const pendingSends = new Map<string, Promise<boolean>>();

async function settle(id: string): Promise<{ sessionId: string | null }> {
  await pendingSends.get(id);
  pendingSends.delete(id);
  return { sessionId: chat(id).sessionId };
}

(globalThis as unknown as { knackLearningHarness: unknown }).knackLearningHarness = { newChat, send, startSend, settle };
