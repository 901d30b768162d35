/**
 * What a chat controller (src/agent/chatSession.ts) needs and what it reports: its dependencies,
 * the learning loop's hooks, and the events the UI renders. Plain TypeScript, no DOM.
 */
import type { TurnEnd } from './agentLoop';
import type { ChatContext } from './chatContext';
import type { ContextUsage } from './contextBudget';
import type { LearningCounters, LearningIntervals } from './learningCounters';
import type { SessionPromptContext } from './sessionPrompt';
import type { ChatMessage as ModelMessage, ChatProvider } from '../providers/provider';
import type { ChatSession as SessionRecord, SessionModelChoice, SessionStore } from '../sessions/sessionStore';
import type { ToolRegistry } from '../tools/toolRegistry';

export interface TurnLearning {
  /** The user is starting a turn: a running review for the session gives way (never awaited). */
  beforeUserTurn(sessionId: string): void;
  /**
   * The finalizer: returns the counters to persist for the session. `messages` (the whole session
   * as the model sees it) is built when first read: most turns schedule no review and never need it.
   */
  afterTurn(report: {
    sessionId: string;
    readonly messages: ModelMessage[];
    systemPrompt: string;
    counters: LearningCounters;
    /** The intervals this turn counted with (from the settings of the moment). */
    intervals: LearningIntervals;
    end: TurnEnd;
    finalReply: string | null;
  }): LearningCounters | Promise<LearningCounters>;
}

/** Reads skills for `/<skill>` invocations. */
export interface SkillLoader {
  /** The SKILL.md text of the named skill, or null when there is none. */
  read(name: string): Promise<string | null>;
  /** Counts an explicit load as a use (the curator and the library show it). */
  bumpUse(name: string): Promise<unknown>;
}

export interface ChatSessionDeps {
  store: SessionStore;
  registry: ToolRegistry;
  /**
   * The system prompt for a new session: instructions, guidance, the memory snapshot and the
   * skill index ranked against the first user message. Called once per session.
   */
  buildSystemPrompt(firstUserMessage: string, context?: SessionPromptContext): Promise<string>;
  /**
   * The chat model's window and token counter (docs/context-window.md); every model call of a
   * turn is fitted to it. Without it (or with null) requests are sent whole.
   */
  context?(provider: ChatProvider): Promise<ChatContext | null>;
  /** The provider from the settings of the moment (they may change between turns). */
  provider(): Promise<ChatProvider>;
  /** The provider and model a new session is stored with (chosen in the chat header). */
  chatModel?(): SessionModelChoice | null;
  intervals(): LearningIntervals;
  learning: TurnLearning;
  skills?: SkillLoader;
  temperature?: number;
  maxIterations?: number;
  /**
   * Write a needed summary right after a reply instead of in front of the next turn (default true;
   * the bench turns it off to measure what the user waited before, docs/context-window.md).
   */
  summariseAhead?: boolean;
}

/** Why a turn did not end with a reply, in words the user can act on. */
export interface TurnProblem {
  message: string;
  hint: string;
}

export type ChatSessionEvent =
  /**
   * The conversation changed: read `controller.lines`. Line objects are never changed once there
   * (a change is a new object in its place), and every line before `from` is the same object as
   * at the previous `lines` event, so a listener redoes only what follows it and copies the list
   * only when it needs its own (docs/chat.md, "Rendering"). No copy is made per event: a turn of
   * thousands of lines would make a copy of the whole list per line.
   */
  | { type: 'lines'; from: number }
  /** The text of the model call in progress, whole ('' when a call starts). */
  | { type: 'draft'; text: string }
  | { type: 'session'; session: SessionRecord }
  | { type: 'turn-start' }
  /** `notice`: the reply ended cut off, or empty; the line is flagged and says so. */
  | { type: 'turn-end'; end: TurnEnd; problem: TurnProblem | null; notice?: ReplyNotice }
  /**
   * What fills the model's window after the latest fitting (the context meter), with a quiet note
   * when the window was learned, the conversation summarised, or turns were left out.
   */
  | { type: 'context'; usage: ContextUsage | null; note?: string }
  /** A summary is being written (or checked for) after a reply, ahead of the next turn; `busy` false when done. */
  | { type: 'summary-ahead'; busy: boolean };

/** What the chat says under a reply that did not end normally (besides Stop and errors). */
export type ReplyNotice = 'cut-off' | 'empty';

export type ChatSessionListener = (event: ChatSessionEvent) => void;
