/**
 * Chat: the app's own overhead from Send to the first rendered token, next to the moment the
 * first byte of the reply reached the page.
 *
 * The settings are pointed (through the UI's console handle, as Settings → Save would) at a
 * model, and `fetch` is wrapped to mark when the provider's request starts and when its
 * response headers arrive (the scripted server sends them with its first byte). Two models:
 * - `server`: the scripted model bench/run.mjs starts (`knackBenchModelUrl`), over real HTTP;
 * - `inPage`: an in-page stand-in that answers with a ready SSE stream, so the figures hold
 *   the app's work alone (no socket, no server).
 * Everything between is the real path: chat state, session controller (session record, the
 * frozen system prompt from the skill index and memory, persistence in IndexedDB), agent loop,
 * OpenAI-compatible provider, SSE parser, markdown rendering. Per run, on a new chat and on a
 * follow-up turn of the same chat:
 *   sendToRequest      Send → the provider's request starts (session, prompt, persistence)
 *   firstByteToRender  response headers in the page → the first token is in the DOM
 *   sendToFirstToken   Send → first token in the DOM (includes the model's time to first byte)
 */
import { summarize, type Summary } from './stats';
import type { BrowserBench } from './types';

const IN_PAGE_BASE_URL = 'http://chat-bench.invalid/v1';
/** The first word of both models' replies (bench/node/benchModelServer.ts: "Bench reply: …"). */
const TOKEN = 'Bench';

interface ChatHandle {
  send(text: string): Promise<boolean>;
  newChat(): void;
  readonly isGenerating: boolean;
  readonly sessionId: string | null;
}
interface SettingsHandle {
  current: Record<string, unknown>;
  save(changes: Record<string, unknown>): Promise<void>;
}

function uiHandle(): { chat: ChatHandle; settings: SettingsHandle } {
  const handle = (globalThis as { knackUi?: { chat?: ChatHandle; settings?: SettingsHandle } }).knackUi;
  if (!handle?.chat || !handle.settings) throw new Error('knackUi.chat / knackUi.settings missing');
  return { chat: handle.chat, settings: handle.settings };
}

function sseChunk(content: string): string {
  return `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
}

interface Marks {
  requestAt: number;
  firstByteAt: number;
}

/** Marks the model request's start and first byte; answers the in-page URL itself. */
function benchFetch(real: typeof fetch, marks: Marks, baseUrl: string): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(baseUrl)) return real(input, init);
    marks.requestAt = performance.now();
    if (baseUrl !== IN_PAGE_BASE_URL) {
      const response = await real(input, init);
      marks.firstByteAt = performance.now();
      return response;
    }
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        marks.firstByteAt = performance.now();
        controller.enqueue(encoder.encode(sseChunk(`${TOKEN} `)));
        for (const word of ['reply: ', 'first ', 'token.']) controller.enqueue(encoder.encode(sseChunk(word)));
        controller.enqueue(encoder.encode(`data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

/** Resolves with the time the nth reply of the list first shows the token. */
function whenRendered(replyIndex: number): Promise<number> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const replies = document.querySelectorAll('ol[aria-label="Messages"] > li.assistant');
      const reply = replies[replyIndex];
      if (reply?.textContent?.includes(TOKEN)) {
        resolve(performance.now());
        return true;
      }
      return false;
    };
    if (check()) return;
    const observer = new MutationObserver(() => {
      if (check()) observer.disconnect();
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

/** Until the list no longer shows the previous chat (New chat renders on the next frame). */
async function cleared(): Promise<void> {
  while (document.querySelector('ol[aria-label="Messages"] > li')) await new Promise((resolve) => requestAnimationFrame(resolve));
}

async function idle(chat: ChatHandle): Promise<void> {
  while (chat.isGenerating) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function runChat(runs: number, baseUrl: string): Promise<Record<string, Record<string, Summary>>> {
  const { chat, settings } = uiHandle();
  const before = { ...settings.current };
  const realFetch = globalThis.fetch;
  const marks: Marks = { requestAt: 0, firstByteAt: 0 };
  globalThis.fetch = benchFetch(realFetch, marks, baseUrl);
  const samples = {
    newChat: { sendToRequest: [] as number[], firstByteToRender: [] as number[], sendToFirstToken: [] as number[] },
    followUp: { sendToRequest: [] as number[], firstByteToRender: [] as number[], sendToFirstToken: [] as number[] },
  };
  const sessionIds: string[] = [];
  try {
    await settings.save({ provider: 'openai-compatible', baseUrl, model: 'bench-model', apiKey: '' });
    for (let i = -2; i < runs; i++) {
      chat.newChat();
      await cleared();
      for (const [turn, kind] of [[0, 'newChat'], [1, 'followUp']] as const) {
        const rendered = whenRendered(turn);
        const sentAt = performance.now();
        await chat.send(`bench question ${i}.${turn}`);
        const renderedAt = await rendered;
        await idle(chat);
        if (turn === 0 && chat.sessionId) sessionIds.push(chat.sessionId);
        if (i < 0) continue; // warm-up: lazy chunks, first IndexedDB transactions
        samples[kind].sendToRequest.push(marks.requestAt - sentAt);
        samples[kind].firstByteToRender.push(renderedAt - marks.firstByteAt);
        samples[kind].sendToFirstToken.push(renderedAt - sentAt);
      }
    }
  } finally {
    globalThis.fetch = realFetch;
    chat.newChat();
    await settings.save(before);
    // The bench's chats go again.
    const store = (globalThis as { knack?: { sessions?: { store: { delete(id: string): Promise<boolean> } } } }).knack?.sessions?.store;
    for (const id of sessionIds) await store?.delete(id);
  }
  const summarizeAll = (group: Record<string, number[]>) => Object.fromEntries(Object.entries(group).map(([key, values]) => [key, summarize(values)]));
  return { newChat: summarizeAll(samples.newChat), followUp: summarizeAll(samples.followUp) };
}

// ---------------------------------------------------------------------------------------------
// chatToolStorm: a looping model that asks for TOOL_STORM_CALLS (200) tool calls in every reply
// (bench/node/benchModelServer.ts), until the iteration limit. Figures:
//   full.longestFrameMs   the longest gap between animation frames over the whole turn
//   full.longestFrameWhileLinesArriveMs   the same up to the last frame that showed a new line
//                         (without the turn's end: the learning loop's report, src/ui/state/learning.svelte.ts)
//   full.longestTaskMs    the longest main-thread task the 'longtask' observer saw (0: none > 50 ms)
//   full.renderedToolCalls / expectedToolCalls   tool calls in the DOM vs in the chat's lines
//   full.largestRequestKB the largest request body the turn sent (the whole history goes each time)
//   stop.latency          Stop clicked → the first frame with the chat idle, over several runs
//   stop.turnEnded        Stop clicked → the turn's end (the lines said before Stop all stored)
//   stop.unsavedAtStop    lines not yet stored when Stop was clicked, per run
//   stop.extraRequests / extraToolResults   what arrived in the second after the chat went idle
// ---------------------------------------------------------------------------------------------

const STORM_MARK = 'bench tool storm';

interface StormChat extends ChatHandle {
  readonly lines: readonly { id: string; role: string; toolCalls?: unknown[] }[];
  /** Stopped, with the turn's last writes still landing (src/ui/state/chat.svelte.ts). */
  readonly isStopping: boolean;
}

const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));

/**
 * Watches frame gaps and long tasks until `stop()`; with `lineCount`, also the longest gap up to
 * the last frame in which the chat's lines changed (the turn's end work, after, is left out).
 */
function frameWatch(lineCount?: () => number): { stop(): { longestFrameMs: number; longestFrameWhileLinesArriveMs: number; longestTaskMs: number; longTasks: number } } {
  let running = true;
  let last = performance.now();
  let longestFrame = 0;
  let lines = lineCount?.() ?? 0;
  let longestWhileArriving = 0;
  let longestTask = 0;
  let longTasks = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longTasks += 1;
      longestTask = Math.max(longestTask, entry.duration);
    }
  });
  observer.observe({ type: 'longtask', buffered: false });
  const tick = (now: number) => {
    longestFrame = Math.max(longestFrame, now - last);
    last = now;
    const count = lineCount?.() ?? 0;
    if (count !== lines) {
      lines = count;
      longestWhileArriving = longestFrame;
    }
    if (running) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return {
    stop() {
      running = false;
      observer.disconnect();
      const round = (value: number) => Math.round(value * 10) / 10;
      return { longestFrameMs: round(longestFrame), longestFrameWhileLinesArriveMs: round(longestWhileArriving), longestTaskMs: round(longestTask), longTasks };
    },
  };
}

function toolResults(chat: StormChat): number {
  return chat.lines.filter((line) => line.role === 'tool').length;
}

function stopButton(): HTMLButtonElement {
  const button = [...document.querySelectorAll('button')].find((candidate) => candidate.textContent?.trim() === 'Stop');
  if (!button) throw new Error('no Stop button');
  return button;
}

/** Counts the page's requests to the model, and the largest request body (characters). */
function countRequests(baseUrl: string): { readonly count: number; readonly largestBody: number; restore(): void } {
  const real = globalThis.fetch;
  const counter = { count: 0, largestBody: 0, restore: () => void (globalThis.fetch = real) };
  globalThis.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(baseUrl)) {
      counter.count += 1;
      if (typeof init?.body === 'string') counter.largestBody = Math.max(counter.largestBody, init.body.length);
    }
    return real(input, init);
  };
  return counter;
}

async function fullStorm(chat: StormChat): Promise<Record<string, number>> {
  chat.newChat();
  await cleared();
  const watch = frameWatch(() => chat.lines.length);
  const started = performance.now();
  await chat.send(`${STORM_MARK}: the whole turn`);
  await idle(chat);
  await nextFrame();
  const frames = watch.stop();
  const expectedToolCalls = chat.lines.reduce((sum, line) => sum + (line.toolCalls?.length ?? 0), 0);
  return {
    ...frames,
    turnMs: Math.round(performance.now() - started),
    expectedToolCalls,
    // Single calls, plus the calls folded into groups (ToolCallGroup.svelte, closed by default).
    renderedToolCalls:
      document.querySelectorAll('ol[aria-label="Messages"] details.tool').length +
      [...document.querySelectorAll<HTMLElement>('ol[aria-label="Messages"] [data-tool-group]')].reduce((sum, group) => sum + Number(group.dataset.calls), 0),
  };
}

/** One stopped turn: Stop is clicked once `afterResults` tool results are in. */
async function stoppedStorm(chat: StormChat, requests: { readonly count: number }, afterResults: number): Promise<{ latency: number; ended: number; unsaved: number; extraRequests: number; extraToolResults: number; longestFrameMs: number }> {
  chat.newChat();
  await cleared();
  const watch = frameWatch();
  void chat.send(`${STORM_MARK}: stop after ${afterResults}`);
  while (chat.isGenerating && toolResults(chat) < afterResults) await nextFrame();
  if (!chat.isGenerating) throw new Error(`the turn ended before ${afterResults} tool results`);
  // Lines whose write has not landed yet (their id is still local): the turn ends after them.
  const unsaved = chat.lines.filter((line) => line.id.startsWith('local:')).length;
  const clickedAt = performance.now();
  stopButton().click();
  while (chat.isGenerating) await nextFrame();
  const latency = (await nextFrame()) - clickedAt;
  const atIdle = { requests: requests.count, results: toolResults(chat) };
  while (chat.isStopping) await nextFrame();
  const ended = performance.now() - clickedAt;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return {
    latency,
    ended,
    unsaved,
    extraRequests: requests.count - atIdle.requests,
    extraToolResults: toolResults(chat) - atIdle.results,
    longestFrameMs: watch.stop().longestFrameMs,
  };
}

async function runStorm(baseUrl: string): Promise<unknown> {
  const { chat: base, settings } = uiHandle();
  const chat = base as StormChat;
  const before = { ...settings.current };
  const requests = countRequests(baseUrl);
  const sessionIds: string[] = [];
  try {
    await settings.save({ provider: 'openai-compatible', baseUrl, model: 'bench-model', apiKey: '' });
    const full = { ...(await fullStorm(chat)), largestRequestKB: Math.round(requests.largestBody / 1024) };
    if (chat.sessionId) sessionIds.push(chat.sessionId);
    const stops = [];
    for (const afterResults of [1, 100, 250, 700, 1500]) {
      stops.push(await stoppedStorm(chat, requests, afterResults));
      if (chat.sessionId) sessionIds.push(chat.sessionId);
    }
    return {
      full,
      stop: {
        latency: summarize(stops.map((run) => run.latency)),
        // The turn's end (its last writes landed, the learning loop told): after the UI is idle.
        turnEnded: summarize(stops.map((run) => run.ended)),
        unsavedAtStop: stops.map((run) => run.unsaved),
        extraRequests: Math.max(...stops.map((run) => run.extraRequests)),
        extraToolResults: Math.max(...stops.map((run) => run.extraToolResults)),
        afterStop: Math.max(...stops.map((run) => run.extraRequests + run.extraToolResults)),
        longestFrameMs: Math.max(...stops.map((run) => run.longestFrameMs)),
      },
    };
  } finally {
    requests.restore();
    chat.newChat();
    await settings.save(before);
    const store = (globalThis as { knack?: { sessions?: { store: { delete(id: string): Promise<boolean> } } } }).knack?.sessions?.store;
    for (const id of sessionIds) await store?.delete(id);
  }
}

async function servicesUp(context: Parameters<BrowserBench['run']>[0]): Promise<void> {
  await context.knack();
  // The chat's services (skills, memory, sessions) come up after boot.
  const started = performance.now();
  while (!(globalThis as { knack?: { sessions?: unknown; skills?: unknown } }).knack?.sessions && performance.now() - started < 20_000) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const benches: BrowserBench[] = [
  {
    name: 'chatToolStorm',
    async run(context) {
      await servicesUp(context);
      const serverUrl = (globalThis as { knackBenchModelUrl?: string }).knackBenchModelUrl;
      if (!serverUrl) return { error: 'no scripted model: bench/run.mjs sets knackBenchModelUrl' };
      return runStorm(serverUrl);
    },
  },
  {
    name: 'chatFirstToken',
    async run(context) {
      await servicesUp(context);
      const serverUrl = (globalThis as { knackBenchModelUrl?: string }).knackBenchModelUrl;
      return {
        server: serverUrl ? await runChat(20, serverUrl) : { error: 'no scripted model: bench/run.mjs sets knackBenchModelUrl' },
        inPage: await runChat(20, IN_PAGE_BASE_URL),
        note: 'server = scripted model over HTTP; inPage = a ready SSE stream answered in the page (app overhead only)',
      };
    },
  },
];
