/**
 * Cases from the user's own chats (docs/gate.md, "Independent cases"), the app's part: after a
 * chat turn, the skills it loaded get the user's request as a candidate case (unless this chat
 * taught or edited the skill: its ledger entries name their chat); the skill view lists them.
 * **Add as case** turns one into a case with its provenance (`knack.origin: "chat"`) and the
 * checks the review model drafted; the case editor shows it for the user to confirm or edit, and
 * the candidate leaves the list once the editor saved it. **Dismiss** drops it for good.
 */
import type { ChatMessage } from '../providers/provider';
import {
  addCandidate,
  candidateKey,
  noteLoadedIn,
  noteOutcome,
  removeCandidate,
  skillLoadsOfTurn,
  type CandidateCase,
  type UseOutcome,
} from '../skills/candidateCases';
import type { EvalCase, EvalsFile } from '../gate/types';
import type { ParsedDraft } from '../gate/checkDraft';
import type { ToolOutcome } from '../tools/toolResult';
import type { SessionStore } from '../sessions/sessionStore';
import type { SkillServices } from './skillServices';

/**
 * Records the skills a finished turn loaded: the chat on each one's use outcomes, and the
 * request as a candidate case. Returns the names of the skills it loaded.
 */
export async function recordSkillLoads(deps: { skills: SkillServices; sessions: SessionStore }, report: { sessionId: string; readonly messages: ChatMessage[] }): Promise<string[]> {
  const { engine } = deps.skills;
  const loaded: string[] = [];
  for (const load of skillLoadsOfTurn(report.messages)) {
    const entry = engine.catalog.resolve(load.skill)[0];
    if (!entry) continue;
    const name = entry.name;
    loaded.push(name);
    await engine.usage.update(name, (record) => noteLoadedIn(record, report.sessionId));
    const ledger = await engine.ledger.list(name);
    // The teaching chat (and any chat that edited the skill) is not independent of it.
    if (ledger.some((item) => item.evidence?.session_id === report.sessionId)) continue;
    const session = await deps.sessions.get(report.sessionId);
    await engine.usage.update(name, (record, now) =>
      addCandidate(record, { prompt: load.prompt, session_id: report.sessionId, session_title: session?.title ?? '', at: now, via: load.via }),
    );
  }
  return loaded;
}

/** What the user did after a turn that loaded these skills (docs/gate.md, "Use outcomes"). */
export async function recordOutcome(skills: SkillServices, names: readonly string[], outcome: UseOutcome): Promise<void> {
  for (const name of names) await skills.engine.usage.update(name, (record) => noteOutcome(record, outcome));
}

/** The next free numeric id of a cases file. */
function nextId(evals: EvalCase[]): number {
  return evals.reduce((max, item) => (typeof item.id === 'number' && item.id >= max ? item.id + 1 : max), 1);
}

/** The case a candidate becomes: its prompt, its provenance and the drafted checks (none when the draft failed). */
export function caseFromCandidate(candidate: CandidateCase, evals: EvalCase[], draft: ParsedDraft | null = null): EvalCase {
  return {
    id: nextId(evals),
    prompt: candidate.prompt,
    ...(draft?.expectedOutput ? { expected_output: draft.expectedOutput } : {}),
    checks: draft?.checks ?? [],
    knack: { origin: 'chat', session_id: candidate.session_id, session_title: candidate.session_title, created_at: candidate.at },
  };
}

/** Whether a saved cases file holds the case a candidate became (its request, from its chat). */
export function holdsCandidate(file: EvalsFile, candidate: CandidateCase): boolean {
  return file.evals.some((item) => item.prompt === candidate.prompt && item.knack?.origin === 'chat' && item.knack.session_id === candidate.session_id);
}

export interface CandidateDeps {
  skills: () => Promise<SkillServices>;
  readCases(skill: string): Promise<{ file: EvalsFile | null; text: string | null; error?: string }>;
  saveCases(skill: string, file: EvalsFile): Promise<ToolOutcome>;
}

export async function listCandidates(deps: CandidateDeps, skill: string): Promise<CandidateCase[]> {
  return (await (await deps.skills()).engine.usage.get(skill)).candidate_cases ?? [];
}

/**
 * The case a candidate would become, for the case editor: nothing is saved yet. Its id follows
 * the cases saved now; the error when the candidate is gone or the cases file does not parse.
 */
export async function candidateAsCase(
  deps: CandidateDeps,
  skill: string,
  key: string,
  draft: ParsedDraft | null,
): Promise<{ success: true; case: EvalCase } | { success: false; error: string }> {
  const candidate = (await listCandidates(deps, skill)).find((item) => candidateKey(item) === key);
  if (!candidate) return { success: false, error: 'That request is no longer a candidate of this skill.' };
  const cases = await deps.readCases(skill);
  if (cases.text !== null && !cases.file) return { success: false, error: `evals/evals.json does not parse (${cases.error ?? 'invalid'}); fix it first.` };
  return { success: true, case: caseFromCandidate(candidate, cases.file?.evals ?? [], draft) };
}

/**
 * After the editor saved: a candidate whose case is now in evals/evals.json leaves the list (not
 * as dismissed: the same request from another chat may come again). True when it left.
 */
export async function settleCandidate(deps: CandidateDeps, skill: string, key: string): Promise<boolean> {
  const candidate = (await listCandidates(deps, skill)).find((item) => candidateKey(item) === key);
  const cases = await deps.readCases(skill);
  if (!candidate || !cases.file || !holdsCandidate(cases.file, candidate)) return false;
  await (await deps.skills()).engine.usage.update(skill, (record) => removeCandidate(record, key, false));
  return true;
}

export async function dismissCandidate(deps: CandidateDeps, skill: string, key: string): Promise<void> {
  await (await deps.skills()).engine.usage.update(skill, (record) => removeCandidate(record, key, true));
}
