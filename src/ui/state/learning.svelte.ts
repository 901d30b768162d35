import type { ChatMessage } from '../../providers/provider';
import type { LearningCounters } from '../../agent/learningCounters';
import type { TurnEnd } from '../../agent/agentLoop';

/**
 * The seam between the chat and the learning loop (SPEC §8): the chat tells it when a user
 * turn starts (a running review for the session is cancelled, without waiting) and when a
 * turn has ended (the finalizer decides whether to schedule a review). The chat persists the
 * counters it gets back. Filled in by the review worker integration (review/, workers/).
 */
export interface TurnReport {
  sessionId: string;
  /** The whole session after the turn, without the system prompt. */
  messages: ChatMessage[];
  systemPrompt: string;
  counters: LearningCounters;
  end: TurnEnd;
  finalReply: string | null;
}

class LearningState {
  /** Chat notices from reviews ("Learned: skill `x` created — unverified"), newest last. */
  notices = $state<{ id: string; sessionId: string; text: string }[]>([]);

  /** Called when the user sends a message; never blocks the turn. */
  beforeUserTurn(sessionId: string): void {
    void sessionId;
  }

  /** Called after every turn; returns the counters to persist for the session. */
  afterTurn(report: TurnReport): LearningCounters {
    return report.counters;
  }
}

export const learning = new LearningState();
