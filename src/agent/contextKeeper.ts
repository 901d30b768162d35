/**
 * Keeps one conversation inside its model's window (docs/context-window.md): before every model
 * call of a turn it fits the request, and when the request would pass the compaction threshold it
 * has the middle of the conversation summarised, stores the summary with the session and has the
 * system prompt rebuilt (fresh index and memory, as Hermes does after a compression). A failed
 * summary does not fail the turn: the oldest turns are left out of the request, with a note.
 * Plain TypeScript, no DOM; the chat controller and the tests drive it.
 */
import type { ChatMessage, ToolSpec } from '../providers/provider';
import type { ModelWindow, TokenCounter } from '../providers/modelWindow';
import type { ChatLine } from './chatLines';
import { compactConversation, type Summariser } from './compaction';
import { compactionThreshold, maxTokensFor, type ContextParts, type ContextPlan, type ContextUsage } from './contextBudget';
import { splitLines, type SessionSummary } from './historyView';
import { fitRequest, type FittedRequest } from './requestFit';
import { systemPromptParts } from './systemPrompt';

export interface ContextKeeperDeps {
  window: ModelWindow;
  counter: TokenCounter;
  plan: ContextPlan;
  /** The tool schemas of the chat, already in the plan's form. */
  tools: ToolSpec[];
  lines(): readonly ChatLine[];
  summary(): SessionSummary | null;
  /** Stores a new summary with the session (the transcript stays as it is). */
  saveSummary(summary: SessionSummary): Promise<void>;
  /** The session's system prompt as frozen now. */
  systemPrompt(): Promise<string>;
  /** Builds and freezes a fresh system prompt after a compaction. */
  rebuildSystemPrompt(): Promise<string>;
  summarise: Summariser;
  now?(): number;
}

export interface PreparedCall {
  systemPrompt: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  maxTokens: number;
  /** The request's tokens as counted (the server's own count calibrates the counter). */
  tokens: number;
  resultRoomTokens: number;
  /** Views whose latest copy this request does not carry whole (agent/viewCopies.ts). */
  viewsNotWhole: string[];
}

/** What happened while fitting, for the chat's quiet notes. */
export type ContextEvent =
  | { type: 'compacted'; summary: SessionSummary }
  | { type: 'compaction-failed'; reason: string }
  | { type: 'left-out'; count: number };

export type CompactOutcome = 'compacted' | 'nothing' | 'failed';

export class ContextKeeper {
  #failed = false;
  #usage: ContextUsage | null = null;
  #reportedLeftOut = 0;

  constructor(
    private readonly deps: ContextKeeperDeps,
    private readonly onEvent: (event: ContextEvent) => void = () => undefined,
  ) {}

  get plan(): ContextPlan {
    return this.deps.plan;
  }

  /** The last fitted request, by part (the context meter). */
  get usage(): ContextUsage | null {
    return this.#usage;
  }

  /** The request for the next model call, compacting first when it would pass the threshold. */
  async prepare(): Promise<PreparedCall> {
    let system = await this.deps.systemPrompt();
    let fit = this.#fit(system);
    if (fit.wholeTokens > compactionThreshold(this.deps.plan, fit.systemTokens + fit.toolTokens) && !this.#failed) {
      const outcome = await this.#compact(fit);
      if (outcome === 'compacted') {
        system = await this.deps.rebuildSystemPrompt();
        fit = this.#fit(system);
      }
    }
    if (fit.leftOut > 0 && fit.leftOut !== this.#reportedLeftOut) {
      this.#reportedLeftOut = fit.leftOut;
      this.onEvent({ type: 'left-out', count: fit.leftOut });
    }
    this.#usage = this.#usageOf(fit, system);
    return {
      systemPrompt: system,
      messages: fit.messages,
      tools: this.deps.tools,
      // What the window leaves after this prompt, up to the plan's reply: never past the window.
      maxTokens: maxTokensFor(this.deps.plan, fit.tokens),
      tokens: fit.tokens,
      // What the results of this call's tools may take: up to the prompt limit, less the call itself (~100).
      resultRoomTokens: Math.max(0, this.deps.plan.promptLimit - fit.tokens - 100),
      viewsNotWhole: fit.viewsNotWhole,
    };
  }

  /** Compact now (the chat's button, or after a length refusal), whatever the threshold says. */
  async compactNow(): Promise<CompactOutcome> {
    const system = await this.deps.systemPrompt();
    const outcome = await this.#compact(this.#fit(system), true);
    if (outcome === 'compacted') {
      const rebuilt = await this.deps.rebuildSystemPrompt();
      this.#usage = this.#usageOf(this.#fit(rebuilt), rebuilt);
    }
    return outcome;
  }

  /**
   * Whether the next user turn would have to compact first: the conversation as it stands plus a
   * user message of `nextMessageTokens` passes the threshold. The chat then summarises right after
   * the reply, while the user reads (docs/context-window.md, "Summaries ahead").
   */
  async wouldCompactNext(nextMessageTokens: number): Promise<boolean> {
    const system = await this.deps.systemPrompt();
    const fit = this.#fit(system);
    return fit.wholeTokens + nextMessageTokens > compactionThreshold(this.deps.plan, fit.systemTokens + fit.toolTokens);
  }

  /** Whether the request as it stands (the user's message in the lines) passes the threshold. */
  async needsCompaction(): Promise<boolean> {
    return this.wouldCompactNext(0);
  }

  /**
   * The summary ahead of the next turn: the same compaction a turn would make, made now. A failure
   * says nothing (the next turn tries again in front, and says so if it fails there too).
   */
  async compactAhead(): Promise<CompactOutcome> {
    const system = await this.deps.systemPrompt();
    const outcome = await this.#compact(this.#fit(system), false, true);
    if (outcome === 'compacted') {
      const rebuilt = await this.deps.rebuildSystemPrompt();
      this.#usage = this.#usageOf(this.#fit(rebuilt), rebuilt);
    }
    return outcome;
  }

  /** The usage of the conversation as it stands, without a model call (the meter on opening a chat). */
  async measure(): Promise<ContextUsage> {
    const system = await this.deps.systemPrompt();
    this.#usage = this.#usageOf(this.#fit(system), system);
    return this.#usage;
  }

  #fit(systemPrompt: string): FittedRequest {
    const { counter, plan, tools } = this.deps;
    return fitRequest({ lines: this.deps.lines(), summary: this.deps.summary(), systemPrompt, tools, counter, plan });
  }

  async #compact(fit: FittedRequest, forced = false, quiet = false): Promise<CompactOutcome> {
    const { counter, plan } = this.deps;
    const previous = this.deps.summary();
    const rest = splitLines(this.deps.lines(), previous).rest;
    try {
      const summary = await compactConversation(
        { lines: this.deps.lines(), summary: previous, counter, plan, fixedTokens: fit.systemTokens + fit.toolTokens, summarise: this.deps.summarise, now: this.deps.now?.() ?? Date.now() },
        rest,
        { forced },
      );
      if (!summary) return 'nothing';
      await this.deps.saveSummary(summary);
      this.onEvent({ type: 'compacted', summary });
      return 'compacted';
    } catch (error) {
      if (quiet) return 'failed';
      this.#failed = true;
      this.onEvent({ type: 'compaction-failed', reason: error instanceof Error ? error.message : String(error) });
      return 'failed';
    }
  }

  #usageOf(fit: FittedRequest, systemPrompt: string): ContextUsage {
    const { counter } = this.deps;
    const sections = systemPromptParts(systemPrompt);
    const skills = counter.countText(sections.skills);
    const memory = counter.countText(sections.memory);
    const parts: ContextParts = {
      instructions: Math.max(0, fit.systemTokens - skills - memory),
      tools: fit.toolTokens,
      skills,
      memory,
      summary: fit.summaryTokens,
      conversation: Math.max(0, fit.tokens - fit.systemTokens - fit.toolTokens - fit.summaryTokens),
    };
    return { used: fit.tokens, window: this.deps.window, parts };
  }
}
