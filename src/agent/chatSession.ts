/**
 * One chat conversation, driven by the user: send, stop, regenerate, edit-and-resend, and
 * `/<skill>` invocations. It owns the session's record in the session store and the frozen
 * system prompt, runs the agent loop with the provider of the moment, persists every message
 * the turn adds, keeps the learning counters per session and reports each turn to the
 * learning loop. It reports what changed through one listener; the UI renders that.
 * Plain TypeScript, no DOM (docs/architecture.md): it runs the same under Vitest with in-memory stores.
 */
import { DEFAULT_MAX_ITERATIONS, runAgentTurn, toolSpecs, type AgentEvent, type TurnEnd } from './agentLoop';
import type { TurnBudget } from './chatContext';
import type { ContextUsage } from './contextBudget';
import type { PromptFit } from './sessionPrompt';
import { mergeTurnCounters } from './learningCounters';
import { buildSkillInvocation } from '../skills/skillInvocation';
import { ProviderError, type ChatMessage as ModelMessage, type ChatProvider } from '../providers/provider';
import type { ChatSession as SessionRecord } from '../sessions/sessionStore';
import type { ChatSessionDeps, ChatSessionEvent, ChatSessionListener, ReplyNotice, TurnProblem } from './chatSessionTypes';
import { createWriteContext } from '../tools/writeContext';
import { lineFromModel, lineFromStored, messageToStore, titleFrom, type ChatLine } from './chatLines';
import { toModelHistory } from './modelHistory';
import { SummaryAhead } from './summaryAhead';

export { lineFromModel, lineFromStored, messageToStore, skillInvocationOf, titleFrom, type ChatLine } from './chatLines';
export { toModelHistory } from './modelHistory';

export type { ChatSessionDeps, ChatSessionEvent, ChatSessionListener, ReplyNotice, SkillLoader, TurnLearning, TurnProblem } from './chatSessionTypes';


function problemOf(error: unknown): TurnProblem {
  if (error instanceof ProviderError) return { message: error.message, hint: error.hint };
  const message = error instanceof Error ? error.message : String(error);
  return { message, hint: '' };
}

interface TurnOutcome {
  end: TurnEnd;
  problem: TurnProblem | null;
  notice?: ReplyNotice;
}

/** Where the turn's last model call begins in the lines, and what it reasoned. */
interface FinalCall {
  firstLine: number;
  reasoning: string;
}

export class ChatController {
  #session: SessionRecord | null = null;
  #lines: ChatLine[] = [];
  /** The first line that changed since the last `lines` event (docs/chat.md, "Rendering"). */
  #changedFrom = 0;
  #abort: AbortController | null = null;
  #running = false;
  /** Stop pressed before the turn's request began (while the session or prompt was set up). */
  #stopRequested = false;
  #localIds = 0;
  /** The summary written after a reply, ahead of the next turn (docs/context-window.md, "Summaries ahead"). */
  readonly #ahead = new SummaryAhead({
    budget: async (signal) => this.#turnBudget(await this.deps.provider(), signal),
    onChange: (busy, budget) => this.#emit(budget ? { type: 'context', usage: budget.usage } : { type: 'summary-ahead', busy }),
  });
  readonly #listeners = new Set<ChatSessionListener>();

  constructor(private readonly deps: ChatSessionDeps) {}

  /** Resumes a stored session: its messages and its frozen system prompt. */
  static async open(deps: ChatSessionDeps, sessionId: string): Promise<ChatController> {
    const session = await deps.store.get(sessionId);
    if (!session) throw new Error('This chat no longer exists (it may have been deleted in another tab).');
    const controller = new ChatController(deps);
    controller.#session = session;
    controller.#lines = (await deps.store.messages(sessionId)).map(lineFromStored);
    return controller;
  }

  get sessionId(): string | null {
    return this.#session?.id ?? null;
  }

  get session(): SessionRecord | null {
    return this.#session;
  }

  /** The conversation, the controller's own list: read-only, and copy it to keep it. */
  get lines(): readonly ChatLine[] {
    return this.#lines;
  }

  get running(): boolean {
    return this.#running;
  }

  subscribe(listener: ChatSessionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A user message and the reply to it. False when blank or while a reply runs. */
  send(text: string): Promise<boolean> {
    if (!text.trim()) return Promise.resolve(false);
    return this.#userTurn(text, text);
  }

  /** `/<skill> request`: the skill's text goes into the turn as if the model had loaded it. */
  async invokeSkill(name: string, request: string): Promise<boolean> {
    if (this.#running) return false;
    const skillText = await this.deps.skills?.read(name);
    if (skillText === null || skillText === undefined) {
      this.#emit({ type: 'turn-end', end: 'error', problem: { message: `There is no skill named "${name}".`, hint: 'Type / to see the skills you have.' } });
      return false;
    }
    void this.deps.skills?.bumpUse(name).catch(() => undefined); // a count, not worth failing the turn for
    return this.#userTurn(buildSkillInvocation(name, skillText, request), request || name);
  }

  /** Aborts the running reply; what it said so far stays. With no reply running, a summary being written ahead stops too. */
  stop(): void {
    if (this.#abort) this.#abort.abort();
    else if (this.#running) this.#stopRequested = true;
    else this.#ahead.abort();
  }

  /** A summary is being written (or checked for) ahead of the next turn. */
  get summarisingAhead(): boolean { return this.#ahead.busy; } // prettier-ignore

  /** Resolves when no summary is being written ahead (tests and benches wait on it, as a user reads). */
  readonly aheadSettled = (): Promise<void> => this.#ahead.settled();

  /** Drops everything after the last user message and asks again. */
  async regenerate(): Promise<boolean> {
    if (this.#running || !this.#session) return false;
    const last = this.#lines.findLastIndex((line) => line.role === 'user');
    if (last < 0) return false;
    this.#running = true;
    await this.#ahead.cancel();
    try {
      await this.#truncateAfter(this.#lines[last]!.seq);
    } catch (error) {
      this.#running = false;
      this.#emit({ type: 'turn-end', end: 'error', problem: problemOf(error) });
      return false;
    }
    await this.#turn();
    return true;
  }

  /** Replaces a user message, drops everything after it and asks again. */
  async editAndResend(lineId: string, text: string): Promise<boolean> {
    if (this.#running || !this.#session || !text.trim()) return false;
    const at = this.#lines.findIndex((line) => line.id === lineId);
    const line = this.#lines[at];
    if (!line || line.role !== 'user') return false;
    this.#running = true;
    await this.#ahead.cancel();
    try {
      await this.deps.store.updateMessage(line.id, { content: text });
      this.#setLine(at, { content: text });
      await this.#truncateAfter(line.seq);
    } catch (error) {
      this.#running = false;
      this.#emit({ type: 'turn-end', end: 'error', problem: problemOf(error) });
      return false;
    }
    await this.#turn();
    return true;
  }

  async #userTurn(content: string, promptHint: string): Promise<boolean> {
    if (this.#running) return false;
    this.#running = true;
    // Shown at once; the stored id replaces the local one when the write lands.
    const at = this.#pushLine({ id: this.#localId(), seq: this.#nextSeq(), role: 'user', content });
    this.#emitLines();
    this.#emit({ type: 'turn-start' });
    try {
      await this.#ahead.settle();
      const session = await this.#ensureSession(promptHint);
      const stored = await this.deps.store.append(session.id, { role: 'user', content });
      this.#setLine(at, { id: stored.id, seq: stored.seq });
      this.#emitLines();
    } catch (error) {
      this.#running = false;
      this.#stopRequested = false;
      this.#emit({ type: 'turn-end', end: 'error', problem: problemOf(error) });
      return true; // the message is on screen; the problem says why no reply came
    }
    await this.#turn({ announced: true });
    return true;
  }

  /** Creates the session on its first message, freezing the system prompt. */
  async #ensureSession(firstUserMessage: string): Promise<SessionRecord> {
    if (this.#session) return this.#session;
    const fit = await this.#promptFitNow();
    const snapshot = await this.deps.buildSystemPrompt(firstUserMessage, fit ? { fit } : undefined);
    this.#session = await this.deps.store.create({ title: titleFrom(firstUserMessage), snapshot, chatModel: this.deps.chatModel?.() ?? null });
    this.#emit({ type: 'session', session: this.#session });
    return this.#session;
  }

  async #systemPrompt(session: SessionRecord): Promise<string> {
    if (session.snapshot !== null) return session.snapshot;
    // A session made elsewhere (an import, an older version) gets its prompt frozen now.
    const firstUser = this.#lines.find((line) => line.role === 'user')?.content ?? '';
    const snapshot = await this.deps.buildSystemPrompt(firstUser);
    this.#session = await this.deps.store.setSnapshot(session.id, snapshot);
    return snapshot;
  }

  async #turn(options: { announced?: boolean } = {}): Promise<void> {
    this.#running = true;
    const abort = new AbortController();
    this.#abort = abort;
    if (this.#stopRequested) abort.abort();
    this.#stopRequested = false;
    if (!options.announced) this.#emit({ type: 'turn-start' });
    let outcome: TurnOutcome = { end: 'error', problem: null };
    try {
      outcome = await this.#runTurn(this.#session!, abort.signal);
    } catch (error) {
      outcome = await this.#turnFailed(error, abort.signal);
    } finally {
      this.#abort = null;
      this.#running = false;
      this.#emit({ type: 'draft', text: '' });
      this.#emitLines();
      // Before the turn's end is announced, so whoever waits for the end sees the summary under way.
      if (outcome.end === 'final' && this.deps.context && this.deps.summariseAhead !== false) this.#ahead.start();
      this.#emit({ type: 'turn-end', end: outcome.end, problem: outcome.problem, ...(outcome.notice ? { notice: outcome.notice } : {}) });
    }
  }

  /** The agent loop for the session, its messages stored, then the learning loop's report. */
  async #runTurn(session: SessionRecord, signal: AbortSignal): Promise<TurnOutcome> {
    this.deps.learning.beforeUserTurn(session.id);
    const systemPrompt = await this.#systemPrompt(session);
    const provider = await this.deps.provider();
    const context = createWriteContext('foreground', session.id);
    // A compaction replaces what was viewed with a summary: views are sent in full again (tools/viewedFiles.ts).
    const budget = await this.#turnBudget(provider, signal, () => context.viewedFiles?.clear());
    const history = toModelHistory(this.#lines);
    const before = this.#lines.length;
    const recorder = this.#turnRecorder(session.id);
    const intervals = this.deps.intervals();
    const result = await runAgentTurn({
      provider,
      registry: this.deps.registry,
      context,
      systemPrompt,
      history,
      counters: { itersSinceSkill: session.itersSinceSkill, turnsSinceMemory: session.turnsSinceMemory },
      intervals,
      maxIterations: this.deps.maxIterations ?? DEFAULT_MAX_ITERATIONS,
      signal,
      ...(this.deps.temperature !== undefined ? { temperature: this.deps.temperature } : {}),
      ...(budget
        ? {
            prepareCall: async () => {
              const call = await budget.keeper.prepare();
              this.#emit({ type: 'context', usage: budget.usage });
              return call;
            },
            recoverFromLength: (error: ProviderError) => budget.recover(error),
          }
        : {}),
      onEvent: (event) => {
        if (event.type === 'usage') budget?.observe(event.estimated, event.promptTokens);
        recorder.onEvent(event);
      },
    });
    await recorder.stored();
    const end = result.end;
    // A cut-off or empty reply says so on its own line (with Retry), not as a problem.
    const notice: ReplyNotice | undefined = result.cutOff ? 'cut-off' : end === 'final' && result.finalReply === null ? 'empty' : undefined;
    if (notice) await this.#flagFinalReply(session.id, recorder.finalCall(), notice);
    const problem = result.error && !result.cutOff ? problemOf(result.error) : null;
    if (end === 'stopped') await this.#markStopped(before);
    const lines = this.#lines.slice();
    let messages: ModelMessage[] | null = null;
    const counters = await this.deps.learning.afterTurn({
      sessionId: session.id,
      get messages() {
        return (messages ??= toModelHistory(lines));
      },
      systemPrompt,
      counters: result.counters,
      intervals,
      end,
      finalReply: result.finalReply,
    });
    const start = { itersSinceSkill: session.itersSinceSkill, turnsSinceMemory: session.turnsSinceMemory };
    this.#session = await this.deps.store.updateCounters(session.id, (stored) => mergeTurnCounters(stored, start, counters));
    return { end, problem, ...(notice ? { notice } : {}) };
  }

  /** The window budget of a turn with this provider, or null when no window is known (docs/context-window.md). */
  async #turnBudget(provider: ChatProvider, signal?: AbortSignal, compacted?: () => void): Promise<TurnBudget | null> {
    const context = (await this.deps.context?.(provider)) ?? null;
    if (!context) return null;
    // The budget's code (compaction, fitting) is a chunk of its own: a chat starts without it (SPEC §17).
    const { budgetHost, providerSummariser, TurnBudget } = await import('./chatContext');
    const host = budgetHost({
      lines: () => this.#lines,
      session: () => this.#session!,
      store: this.deps.store,
      setSession: (session) => {
        this.#session = session;
      },
      buildSystemPrompt: this.deps.buildSystemPrompt,
      emit: (event) => this.#emit(event),
      ...(compacted ? { compacted } : {}),
    });
    return new TurnBudget(context, toolSpecs(this.deps.registry), host, providerSummariser(provider, signal));
  }

  /** The prompt limits of the chat model's window, for a new session's prompt (undefined: no window known). */
  async #promptFitNow(): Promise<PromptFit | undefined> {
    const context = this.deps.context ? await this.deps.context(await this.deps.provider()) : null;
    if (!context) return undefined;
    const [{ promptFitOf }, { planFor }] = await Promise.all([import('./chatContext'), import('./contextBudget')]);
    return promptFitOf(planFor(context.window, context.compactShare), this.deps.registry.names());
  }

  /**
   * Summarises the middle of the conversation now (the chat's **Compact now**). Returns what
   * happened; false while a reply runs or with no window known.
   */
  async compactNow(): Promise<'compacted' | 'nothing' | 'failed' | false> {
    if (this.#running || !this.#session) return false;
    this.#running = true;
    try {
      await this.#ahead.cancel();
      const budget = await this.#turnBudget(await this.deps.provider());
      if (!budget) return false;
      const outcome = await budget.keeper.compactNow();
      this.#emit({ type: 'context', usage: budget.usage ?? (await budget.keeper.measure()) });
      return outcome;
    } finally {
      this.#running = false;
    }
  }

  /** Measures what the conversation takes of the window without a model call (the meter on opening). */
  async measureContext(): Promise<ContextUsage | null> {
    const budget = this.#session ? await this.#turnBudget(await this.deps.provider()) : null;
    const usage = budget ? await budget.keeper.measure() : null;
    this.#emit({ type: 'context', usage });
    return usage;
  }

  /**
   * Marks the reply of the turn's last model call as cut off or empty, with its reasoning, and
   * stores the marks so a reload shows the same. A call that left no line gets one.
   */
  async #flagFinalReply(sessionId: string, finalCall: FinalCall, notice: ReplyNotice): Promise<void> {
    const marks: Partial<ChatLine> = notice === 'cut-off' ? { cutOff: true } : { empty: true };
    if (finalCall.reasoning) marks.reasoning = finalCall.reasoning;
    let at = this.#lastAssistant(finalCall.firstLine);
    if (at < 0) {
      at = this.#pushLine({ id: this.#localId(), seq: this.#nextSeq(), role: 'assistant', content: '' });
      const stored = await this.deps.store.append(sessionId, messageToStore(this.#lines[at]!));
      this.#setLine(at, { id: stored.id, seq: stored.seq });
    }
    this.#setLine(at, marks);
    await this.deps.store.updateMessage(this.#lines[at]!.id, marks);
  }

  /** The index of the last assistant line at or after `from`, or -1. */
  #lastAssistant(from: number): number {
    for (let at = this.#lines.length - 1; at >= from; at--) if (this.#lines[at]!.role === 'assistant') return at;
    return -1;
  }

  /**
   * Feeds the loop's events to the chat: the draft of the call in progress, and a line per
   * message. The lines are stored in the order the loop produced them, in batches: what arrives
   * while a write is in flight goes in the next one, one transaction each (docs/chat.md, "Saving").
   * After a failed write nothing more is stored; `stored()` rejects with the failure.
   */
  #turnRecorder(sessionId: string): { onEvent: (event: AgentEvent) => void; stored: () => Promise<void>; finalCall: () => FinalCall } {
    const unsaved: number[] = [];
    let writing: Promise<void> | null = null;
    let failure: { error: unknown } | null = null;
    const writeAll = async (): Promise<void> => {
      try {
        while (unsaved.length > 0) {
          const batch = unsaved.splice(0);
          const stored = await this.deps.store.appendMany(sessionId, batch.map((at) => messageToStore(this.#lines[at]!)));
          batch.forEach((at, k) => this.#setLine(at, { id: stored[k]!.id, seq: stored[k]!.seq }));
          this.#emitLines();
        }
      } catch (error) {
        failure = { error };
      } finally {
        // In the same step as the last check of `unsaved`: a line saved after it starts a new writer.
        writing = null;
      }
    };
    const save = (at: number): void => {
      unsaved.push(at);
      if (writing || failure) return;
      writing = writeAll();
    };
    let draft = '';
    const finalCall: FinalCall = { firstLine: this.#lines.length, reasoning: '' };
    const onEvent = (event: AgentEvent): void => {
      if (event.type === 'model-call') {
        draft = '';
        finalCall.firstLine = this.#lines.length;
        finalCall.reasoning = '';
        this.#emit({ type: 'draft', text: '' });
      } else if (event.type === 'reasoning-delta') {
        finalCall.reasoning += event.text;
      } else if (event.type === 'text-delta') {
        draft += event.text;
        this.#emit({ type: 'draft', text: draft });
      } else if (event.type === 'message') {
        const at = this.#pushLine(lineFromModel(event.message, this.#localId(), this.#nextSeq()));
        draft = '';
        this.#emit({ type: 'draft', text: '' });
        this.#emitLines();
        save(at);
      }
    };
    const stored = async (): Promise<void> => {
      while (writing) await writing;
      if (failure) throw failure.error;
    };
    return { onEvent, stored, finalCall: () => ({ ...finalCall }) };
  }

  /** A turn that threw: stopped when the user aborted it (the reply is marked), else an error. */
  async #turnFailed(error: unknown, signal: AbortSignal): Promise<TurnOutcome> {
    if (!signal.aborted) return { end: 'error', problem: problemOf(error) };
    await this.#markStopped(this.#lines.length).catch(() => undefined);
    return { end: 'stopped', problem: null };
  }

  /** The reply the user stopped: its last assistant line is marked; with none, a local marker. */
  async #markStopped(firstOfTurn: number): Promise<void> {
    const at = this.#lastAssistant(firstOfTurn);
    if (at >= 0) {
      this.#setLine(at, { stopped: true });
      await this.deps.store.updateMessage(this.#lines[at]!.id, { stopped: true });
    } else {
      this.#pushLine({ id: this.#localId(), seq: this.#nextSeq(), role: 'assistant', content: '', stopped: true, transient: true });
    }
  }

  async #truncateAfter(seq: number): Promise<void> {
    await this.deps.store.truncateAfter(this.#session!.id, seq);
    // A summary of messages that are gone (an edit or a regenerate before its end) no longer holds.
    const summary = this.#session!.summary;
    if (summary && summary.throughSeq >= seq) this.#session = await this.deps.store.setSummary(this.#session!.id, null);
    const kept = this.#lines.filter((line) => line.seq <= seq && !line.transient);
    let same = 0;
    while (same < kept.length && kept[same] === this.#lines[same]) same++;
    this.#lines = kept;
    this.#changedFrom = Math.min(this.#changedFrom, same);
    this.#emitLines();
  }

  /** Adds a line at the end; returns its index. */
  #pushLine(line: ChatLine): number {
    this.#lines.push(line);
    this.#changedFrom = Math.min(this.#changedFrom, this.#lines.length - 1);
    return this.#lines.length - 1;
  }

  /** Replaces the line at `at` with a changed copy (a sent line object never changes). */
  #setLine(at: number, change: Partial<ChatLine>): void {
    this.#lines[at] = { ...this.#lines[at]!, ...change };
    this.#changedFrom = Math.min(this.#changedFrom, at);
  }

  #nextSeq(): number {
    const last = this.#lines.findLast((line) => !line.transient);
    return last ? last.seq + 1 : 0;
  }

  #localId(): string {
    this.#localIds += 1;
    return `local:${this.#localIds}`;
  }

  #emitLines(): void {
    const from = Math.min(this.#changedFrom, this.#lines.length);
    this.#changedFrom = this.#lines.length;
    this.#emit({ type: 'lines', from });
  }

  #emit(event: ChatSessionEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}
