/**
 * The window budget of one chat turn (docs/context-window.md): the chat model's window and
 * counter, the plan derived from them, the context keeper that fits every model call of the turn,
 * and the recovery from a length refusal (learn the window, compact, send once more). Split from
 * chatSession.ts, which drives the turns. Plain TypeScript, no DOM.
 */
import type { ChatProvider, ProviderError, ToolSpec } from '../providers/provider';
import type { ModelWindow, TokenCounter } from '../providers/modelWindow';
import type { ChatLine } from './chatLines';
import { toolsInForm } from './compactTools';
import { DEFAULT_COMPACT_SHARE, offeredToolNames, planFor, type ContextPlan, type ContextUsage } from './contextBudget';
import { ContextKeeper, type CompactOutcome, type ContextEvent } from './contextKeeper';
import type { Summariser } from './compaction';
import type { SessionSummary } from './historyView';
import type { PromptFit, SessionPromptContext } from './sessionPrompt';
import type { ChatSession as SessionRecord, SessionStore } from '../sessions/sessionStore';

/** What the chat knows of its model's window (src/app/modelWindows.ts keeps it). */
export interface ChatContext {
  window: ModelWindow;
  counter: TokenCounter;
  /** A context-length refusal: the window it named (null when it named none). */
  learn(tokens: number | null, detail: string): Promise<ModelWindow>;
  /** The server counted `reported` prompt tokens for a request counted at `estimated`. */
  observe(estimated: number, reported: number): void;
  /** The compaction threshold as a share of the window (a setting; 0.5 by default). */
  compactShare?: number;
}

/** What the turn budget needs of the chat controller. */
export interface TurnBudgetHost {
  lines(): readonly ChatLine[];
  summary(): SessionSummary | null;
  saveSummary(summary: SessionSummary): Promise<void>;
  /** The frozen system prompt, rebuilt first when it was built for a larger window than this plan's. */
  systemPrompt(fit: PromptFit, counter: TokenCounter): Promise<string>;
  /** Builds and freezes a fresh system prompt (after a compaction). */
  rebuildSystemPrompt(fit: PromptFit): Promise<string>;
  onEvent(event: ContextEvent | { type: 'window-learned'; window: ModelWindow }): void;
}

/** The tool schemas a chat on this plan's window is offered, in the plan's form (docs/context-window.md). */
export function toolsForPlan(plan: ContextPlan, tools: readonly ToolSpec[]): ToolSpec[] {
  const offered = new Set(offeredToolNames(plan, tools.map((tool) => tool.name)));
  return toolsInForm(tools.filter((tool) => offered.has(tool.name)), plan.toolForm);
}

export function promptFitOf(plan: ContextPlan, toolNames?: readonly string[]): PromptFit {
  return { indexTokens: plan.indexTokens, memoryTokens: plan.memoryTokens, ...(toolNames ? { tools: offeredToolNames(plan, toolNames) } : {}) };
}

/** A summary written by the chat's own model: one plain call without tools, its text collected. */
export function providerSummariser(provider: ChatProvider, signal?: AbortSignal): Summariser {
  return async ({ system, prompt, maxTokens }) => {
    let text = '';
    let cut = false;
    const stream = provider.stream({ messages: [{ role: 'system', content: system }, { role: 'user', content: prompt }], maxTokens, temperature: 0, ...(signal ? { signal } : {}) });
    for await (const part of stream) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'finish' && part.reason === 'abort') throw new Error('The summary was stopped.');
      else if (part.type === 'finish' && part.reason === 'length') cut = true;
    }
    if (signal?.aborted) throw new Error('The summary was stopped.');
    return { text, cut };
  };
}

export class TurnBudget {
  #keeper: ContextKeeper;
  #context: ChatContext;

  constructor(
    context: ChatContext,
    private readonly tools: readonly ToolSpec[],
    private readonly host: TurnBudgetHost,
    private readonly summarise: Summariser,
  ) {
    this.#context = context;
    this.#keeper = this.#keeperFor(context.window);
  }

  get keeper(): ContextKeeper {
    return this.#keeper;
  }

  get usage(): ContextUsage | null {
    return this.#keeper.usage;
  }

  #keeperFor(window: ModelWindow): ContextKeeper {
    const plan = planFor(window, this.#context.compactShare ?? DEFAULT_COMPACT_SHARE, measuredReplyTokens(this.host.lines(), this.#context.counter));
    const fit = promptFitOf(plan, this.tools.map((tool) => tool.name));
    const counter = this.#context.counter;
    return new ContextKeeper(
      {
        window,
        counter,
        plan,
        tools: toolsForPlan(plan, this.tools),
        lines: () => this.host.lines(),
        summary: () => this.host.summary(),
        saveSummary: (summary) => this.host.saveSummary(summary),
        systemPrompt: () => this.host.systemPrompt(fit, counter),
        rebuildSystemPrompt: () => this.host.rebuildSystemPrompt(fit),
        summarise: this.summarise,
      },
      (event) => this.host.onEvent(event),
    );
  }

  /**
   * A refusal that names no window: the refused request (its prompt and the reply's room) did not
   * fit, so the window is taken as three quarters of it, or of the known window if that is smaller.
   */
  #guessAfterRefusal(): number {
    const known = this.#context.window.tokens;
    const used = this.#keeper.usage?.used;
    const refused = used === undefined ? known : used + this.#keeper.plan.reserveTokens;
    return Math.max(512, Math.floor(Math.min(known, refused) * 0.75));
  }

  /**
   * After a reply: writes the summary now when the user's next message (as long as their latest
   * ones) would make the next request pass the threshold (docs/context-window.md, "Summaries ahead").
   */
  async summariseAhead(signal?: AbortSignal): Promise<CompactOutcome | 'not-needed'> {
    const lines = this.host.lines();
    if (!(await this.#keeper.wouldCompactNext(expectedUserTokens(lines, this.#context.counter)))) return 'not-needed';
    if (signal?.aborted) return 'failed';
    return this.#keeper.compactAhead();
  }

  /** The server's count of a request's prompt: calibrates the counter. */
  observe(estimated: number | null, reported: number): void {
    if (estimated !== null && estimated > 0 && reported > 0) this.#context.observe(estimated, reported);
  }

  /** A length refusal: the window is learned, the conversation compacted, and the call may go again. */
  async recover(error: ProviderError): Promise<boolean> {
    const figure = error.contextWindow ?? this.#guessAfterRefusal();
    const stored = await this.#context.learn(figure, error.message);
    // The refusal is evidence about this server now: a larger figure set by the user does not
    // make the retry any likelier to fit, so this turn goes on with the smaller one.
    const learned: ModelWindow = stored.tokens <= figure ? stored : { tokens: figure, source: 'learned', detail: error.message };
    this.#context = { ...this.#context, window: learned };
    this.#keeper = this.#keeperFor(learned);
    this.host.onEvent({ type: 'window-learned', window: learned });
    // Sent again even when nothing could be summarised: the next fit leaves the oldest turns out instead.
    await this.#keeper.compactNow();
    return true;
  }
}

/** How many of the latest replies size the reply's reserve. */
const MEASURED_REPLIES = 6;

/**
 * The longest of the model's latest replies, in tokens (the reply's reserve is sized from it,
 * contextBudget.ts `replyReserve`); null with fewer than two replies, or when one of them was cut
 * off, since a cut reply says nothing of how long the model wanted to write.
 */
export function measuredReplyTokens(lines: readonly ChatLine[], counter: TokenCounter): number | null {
  const replies = lines.filter((line) => line.role === 'assistant' && !line.transient && !line.stopped).slice(-MEASURED_REPLIES);
  if (replies.length < 2 || replies.some((line) => line.cutOff)) return null;
  return Math.max(...replies.map((line) => counter.countMessage({ role: 'assistant', content: line.content, ...(line.toolCalls?.length ? { toolCalls: line.toolCalls } : {}) })));
}

/** The tokens of the user's next message, expected from their latest ones (at least 32). */
export function expectedUserTokens(lines: readonly ChatLine[], counter: TokenCounter): number {
  const latest = lines.filter((line) => line.role === 'user' && !line.transient).slice(-3);
  return Math.max(32, ...latest.map((line) => counter.countMessage({ role: 'user', content: line.content })));
}

/** Tokens the frozen prompt may take under a plan before it is rebuilt: index, memory and ~600 for the rest. */
export function promptAllowance(fit: PromptFit): number {
  return Math.floor((fit.indexTokens + fit.memoryTokens) * 1.25) + 600;
}

/** The quiet note the chat shows for what the window budget did. */
export function contextNote(event: Parameters<TurnBudgetHost['onEvent']>[0]): string | null {
  switch (event.type) {
    case 'compacted':
      return 'Earlier messages summarised to fit the model’s context window.';
    case 'compaction-failed':
      return `The earlier messages could not be summarised (${event.reason}); the oldest ones are left out of the request until the next try. Nothing is deleted.`;
    case 'left-out':
      return `${event.count} earlier messages are left out of the request to fit the model’s context window. Nothing is deleted.`;
    case 'window-learned':
      return `The model’s context window is ${event.window.tokens.toLocaleString('en-US')} tokens; the request was made to fit and sent again.`;
  }
}

/** What `budgetHost` needs of the chat controller (its lines, its session record, its events). */
export interface BudgetHostAccess {
  lines(): readonly ChatLine[];
  session(): SessionRecord;
  setSession(session: SessionRecord): void;
  store: SessionStore;
  buildSystemPrompt(firstUserMessage: string, context?: SessionPromptContext): Promise<string>;
  emit(event: { type: 'session'; session: SessionRecord } | { type: 'context'; usage: null; note: string }): void;
  /** A compaction happened (the turn forgets which files it already sent, tools/viewedFiles.ts). */
  compacted?(): void;
}

/** The turn budget's view of a chat controller: summaries and prompts stored with its session. */
export function budgetHost(access: BudgetHostAccess): TurnBudgetHost {
  const latestRequest = () => access.lines().findLast((line) => line.role === 'user' && !line.transient)?.content ?? '';
  const freeze = async (snapshot: string): Promise<string> => {
    access.setSession(await access.store.setSnapshot(access.session().id, snapshot));
    return snapshot;
  };
  return {
    lines: access.lines,
    summary: () => access.session().summary ?? null,
    saveSummary: async (summary) => {
      const session = await access.store.setSummary(access.session().id, summary);
      access.setSession(session);
      access.emit({ type: 'session', session });
    },
    systemPrompt: async (fit, counter) => {
      const snapshot = access.session().snapshot;
      // A prompt frozen for a larger window (another model, an older version) is rebuilt to fit this one.
      if (snapshot !== null && counter.countText(snapshot) <= promptAllowance(fit)) return snapshot;
      return freeze(await access.buildSystemPrompt(latestRequest(), { fit }));
    },
    rebuildSystemPrompt: async (fit) => freeze(await access.buildSystemPrompt(latestRequest(), { fit })),
    onEvent: (event) => {
      if (event.type === 'compacted') access.compacted?.();
      const note = contextNote(event);
      if (note) access.emit({ type: 'context', usage: null, note });
    },
  };
}
