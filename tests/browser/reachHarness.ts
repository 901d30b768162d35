/**
 * The reach browser tests' pieces (docs/gate.md, "Reach", "Per-model verdicts"): skills whose
 * cases ask for changelog entries, and a scripted server that answers gate replays by whether
 * the skill is invoked, and first-chat-shaped requests like a small model: it loads a skill only
 * when that skill's index line shares at least two words with the request.
 */
import { expect, type Page } from '@playwright/test';
import type { RecordedRequest, ScriptedServer, Turn } from '../fixtures/scriptedServer';
import { invokedSkill, isFirstChatShaped, isGateReplay, MARKER, skillMd } from './gateHarness';

export const casePrompt = (i: number) => `Case ${i}: draft the changelog entry for build ${200 + i}.`;

/** Near misses: requests the skill must not be loaded for. */
export const nearMiss = (i: number) => `Near ${i}: summarise yesterday's meeting notes.`;

export async function runSkillTool(page: Page, args: Record<string, unknown>): Promise<void> {
  const result = await page.evaluate(async (toolArgs) => {
    const tool = globalThis.knack!.skills!.registry.get('skill_manage')!;
    return tool.run(toolArgs, { origin: 'user', readPaths: new Set() });
  }, args);
  expect(result, JSON.stringify(result)).toMatchObject({ success: true });
}

/** A skill that helps on `count` changelog cases (plus `nearMisses` near misses), with this description. */
export async function seedChangelogSkill(page: Page, name: string, description: string, count = 8, nearMisses = 0): Promise<void> {
  await runSkillTool(page, { action: 'create', name, content: skillMd(name, description, `Always include ${MARKER}.`) });
  const evals = [
    ...Array.from({ length: count }, (_, i) => ({ id: i + 1, prompt: casePrompt(i + 1), checks: [{ type: 'contains', value: MARKER }] })),
    ...Array.from({ length: nearMisses }, (_, i) => ({ id: `near-${i + 1}`, prompt: nearMiss(i + 1), should_trigger: false })),
  ];
  await runSkillTool(page, { action: 'write_file', name, file_path: 'evals/evals.json', file_content: JSON.stringify({ evals }, null, 2) });
}

const words = (text: string) => new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 3));

type Message = { role: string; content: string | null };

/** The skill a small model would load for this first request: one whose index line shares two words. */
export function smallModelPick(request: RecordedRequest): string | null {
  const messages = request.body.messages as Message[];
  const prompt = words(String(messages.at(-1)?.content ?? ''));
  for (const line of String(messages[0]?.content ?? '').split('\n')) {
    const entry = /^\s+- ([a-z0-9-]+): (.*?)( \[[a-z]+\])*$/.exec(line);
    if (!entry) continue;
    const shared = [...words(entry[2]!)].filter((word) => prompt.has(word)).length;
    if (shared >= 2) return entry[1]!;
  }
  return null;
}

/** What the scripted proposer suggests for a skill with a vague description. */
export const PROPOSED = 'Use when drafting a changelog entry for a build.';

/** Answers replays by content and first requests like a small model (see the module comment). */
export function answerLikeSmallModel(server: ScriptedServer): void {
  server.setFallback(async (request): Promise<Turn> => {
    if (isGateReplay(request)) return { text: invokedSkill(request) ? `Changelog entry. ${MARKER}` : 'Changelog entry.' };
    const messages = request.body.messages as Message[];
    // The description trial's proposer (src/gate/descriptionTrial.ts PROPOSER_SYSTEM_V1).
    if (String(messages[0]?.content ?? '').startsWith('You write the one-line description of a skill')) return { text: PROPOSED };
    // The check drafter (src/gate/checkDraft.ts CHECK_DRAFT_SYSTEM_V1), answering as a small model
    // does: prose around a fenced block, one check the gate refuses, and one taken from the skill.
    if (String(messages[0]?.content ?? '').startsWith('You write the checks of one test case')) {
      const sawRule = String(messages[1]?.content ?? '').includes(`Always include ${MARKER}`);
      const checks = [{ type: 'mentions', value: 'changelog' }, ...(sawRule ? [{ type: 'contains', value: MARKER }] : [])];
      return { text: `Here are the checks:\n\`\`\`json\n${JSON.stringify({ expected_output: 'A changelog entry that follows the skill.', checks })}\n\`\`\`\nHope this helps.` };
    }
    if (!isFirstChatShaped(request) || messages.some((message) => message.role === 'tool')) return { text: 'Noted.' };
    const pick = smallModelPick(request);
    return pick ? { toolCalls: [{ name: 'skill_view', arguments: { name: pick } }] } : { text: 'Noted.' };
  });
}

/** The index line a chat request carried for `skill`. */
export function indexLine(request: RecordedRequest, skill: string): string {
  const system = String((request.body.messages as Message[])[0]?.content ?? '');
  return system.split('\n').find((line) => line.includes(`- ${skill}:`)) ?? '';
}
