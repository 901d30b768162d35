/**
 * Candidate cases from the user's own chats (docs/gate.md, "Independent cases"): when a later
 * chat — not one that taught or edited the skill — loads a skill (the model's `skill_view`, the
 * router or the slash command), the user's request is kept on the skill's usage record with
 * where it came from, until the user adds it as a case or dismisses it. Plain functions over
 * the record; usageStore.ts persists them.
 */
import type { ChatMessage } from '../providers/provider';

/** How the skill reached the turn. */
export type LoadedVia = 'skill_view' | 'slash';

export interface CandidateCase {
  /** The user's request, as typed. */
  prompt: string;
  session_id: string;
  session_title: string;
  /** ISO time the turn ended. */
  at: string;
  via: LoadedVia;
}

/** Candidates kept per skill (the newest). */
export const MAX_CANDIDATES = 20;
/** Dismissed requests remembered per skill, so they do not come back. */
export const MAX_DISMISSED = 100;

interface WithCandidates {
  candidate_cases: CandidateCase[];
  dismissed_candidates: string[];
}

/** What identifies a candidate: the chat and the request. */
export const candidateKey = (candidate: Pick<CandidateCase, 'session_id' | 'prompt'>): string => `${candidate.session_id}\n${candidate.prompt.trim()}`;

/** Keeps a new candidate (newest first) unless the same one is kept or was dismissed. */
export function addCandidate(record: WithCandidates, candidate: CandidateCase): void {
  const key = candidateKey(candidate);
  const kept = record.candidate_cases ?? [];
  if ((record.dismissed_candidates ?? []).includes(key) || kept.some((item) => candidateKey(item) === key)) return;
  record.candidate_cases = [candidate, ...kept].slice(0, MAX_CANDIDATES);
}

/** Drops a candidate (added as a case, or dismissed: then it is remembered). */
export function removeCandidate(record: WithCandidates, key: string, dismissed: boolean): void {
  record.candidate_cases = (record.candidate_cases ?? []).filter((item) => candidateKey(item) !== key);
  if (dismissed) record.dismissed_candidates = [key, ...(record.dismissed_candidates ?? []).filter((item) => item !== key)].slice(0, MAX_DISMISSED);
}

const INVOCATION = /^\[The user loaded the skill "([^"]+)" for this request\. Follow it\.\]\n\n<skill name="[^"]*">\n[\s\S]*\n<\/skill>\n\n([\s\S]*)$/;

/**
 * The skills the last turn loaded, with the user's request: a `/<skill>` (or router) invocation
 * in the last user message (skills/skillInvocation.ts shape), and the model's `skill_view`
 * calls after it.
 */
export function skillLoadsOfTurn(messages: readonly ChatMessage[]): { skill: string; prompt: string; via: LoadedVia }[] {
  const last = messages.findLastIndex((message) => message.role === 'user');
  if (last < 0) return [];
  const user = messages[last]!.content;
  const invoked = INVOCATION.exec(user);
  const prompt = (invoked ? invoked[2]! : user).trim();
  if (prompt === '') return [];
  const loads: { skill: string; prompt: string; via: LoadedVia }[] = [];
  if (invoked) loads.push({ skill: invoked[1]!, prompt, via: 'slash' });
  for (const message of messages.slice(last + 1)) {
    for (const call of message.toolCalls ?? []) {
      if (call.name !== 'skill_view') continue;
      try {
        const args = JSON.parse(call.arguments) as { name?: unknown; file_path?: unknown };
        if (typeof args.name === 'string' && args.file_path === undefined && !loads.some((load) => load.skill === args.name)) loads.push({ skill: args.name, prompt, via: 'skill_view' });
      } catch {
        // Arguments that do not parse loaded nothing.
      }
    }
  }
  return loads;
}

/** What the user did after a turn that loaded the skill (docs/gate.md, "Use outcomes"). */
export type UseOutcome = 'moved_on' | 'corrected' | 'regenerated' | 'edited';

export interface UseOutcomes {
  /** Chats that loaded the skill (the newest MAX_LOADED_CHATS ids). */
  chats: string[];
  moved_on: number;
  corrected: number;
  regenerated: number;
  edited: number;
}

export const MAX_LOADED_CHATS = 500;

export const emptyOutcomes = (): UseOutcomes => ({ chats: [], moved_on: 0, corrected: 0, regenerated: 0, edited: 0 });

/** A chat loaded the skill. */
export function noteLoadedIn(record: { use_outcomes: UseOutcomes }, sessionId: string): void {
  const outcomes = { ...emptyOutcomes(), ...record.use_outcomes };
  if (!outcomes.chats.includes(sessionId)) outcomes.chats = [sessionId, ...outcomes.chats].slice(0, MAX_LOADED_CHATS);
  record.use_outcomes = outcomes;
}

/** What the user did next after a turn that loaded the skill. */
export function noteOutcome(record: { use_outcomes: UseOutcomes }, outcome: UseOutcome): void {
  const outcomes = { ...emptyOutcomes(), ...record.use_outcomes };
  outcomes[outcome] += 1;
  record.use_outcomes = outcomes;
}

const CORRECTION = /^\s*(no\b|nope\b|wrong\b|incorrect\b|not quite\b|actually\b|that'?s (not|wrong|incorrect)\b|that is (not|wrong)\b|you (forgot|missed|got)\b|this is wrong\b|that didn'?t\b|it didn'?t\b)/i;

/** A next message that starts by saying the answer was wrong is a correction; anything else moves on. */
export function outcomeOfNextMessage(text: string): UseOutcome {
  return CORRECTION.test(text) ? 'corrected' : 'moved_on';
}

/** "Loaded in 12 chats; corrected after 2" (and the regenerations and edits, when any). */
export function outcomeWords(outcomes: UseOutcomes | undefined): string | null {
  if (!outcomes || outcomes.chats.length === 0) return null;
  const chats = `Loaded in ${outcomes.chats.length} ${outcomes.chats.length === 1 ? 'chat' : 'chats'}`;
  const after = [`corrected after ${outcomes.corrected}`];
  if (outcomes.regenerated > 0) after.push(`regenerated after ${outcomes.regenerated}`);
  if (outcomes.edited > 0) after.push(`edited after ${outcomes.edited}`);
  return `${chats}; ${after.join(', ')}`;
}
