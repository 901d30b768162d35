/**
 * Shared pieces of the verification gate's browser tests (gate.spec.ts): skills and their
 * evals/evals.json seeded through the running app's skill tool, and a scripted server that
 * answers each replay from what the request carries (docs/gate.md, "Replay"): is the skill
 * invoked in the user message (`<skill name="…">`), and which case prompt is it.
 */
import { expect, type Page } from '@playwright/test';
import type { RecordedRequest, ScriptedServer, Turn } from '../fixtures/scriptedServer';

/** The first words of the gate's fixed system prompt (src/gate/replayRequest.ts GATE_SYSTEM_V1). */
export const GATE_SYSTEM_START = 'You are Knack, a helpful assistant. Answer the user';

/** What the model "knows" only with the skill: the checks look for it. */
export const MARKER = 'KNACK-MARKER-42';

export type SkillEffect = 'helps' | 'nothing' | 'hurts';

export function skillMd(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}

/** `count` cases whose one check wants the marker in the answer. */
export function markerCases(count: number, prefix = 'Case'): { evals: { id: number; prompt: string; checks: { type: string; value: string }[] }[] } {
  return {
    evals: Array.from({ length: count }, (_, i) => ({
      id: i + 1,
      prompt: `${prefix} ${i + 1}: write the release note line for build ${100 + i}.`,
      checks: [{ type: 'contains', value: MARKER }],
    })),
  };
}

async function runTool(page: Page, args: Record<string, unknown>): Promise<void> {
  const result = await page.evaluate(async (toolArgs) => {
    const tool = globalThis.knack!.skills!.registry.get('skill_manage')!;
    return tool.run(toolArgs, { origin: 'user', readPaths: new Set() });
  }, args);
  expect(result, JSON.stringify(result)).toMatchObject({ success: true });
}

/** Creates a skill as the user, with its cases in evals/evals.json. */
export async function seedSkill(page: Page, name: string, cases: number): Promise<void> {
  await runTool(page, { action: 'create', name, content: skillMd(name, `Use when writing release notes (${name}).`, `Always include ${MARKER}.`) });
  await runTool(page, { action: 'write_file', name, file_path: 'evals/evals.json', file_content: JSON.stringify(markerCases(cases, name), null, 2) });
}

/** Edits the skill's body as the user (a new version, so a run in flight is superseded). */
export async function editSkill(page: Page, name: string): Promise<void> {
  await runTool(page, { action: 'edit', name, content: skillMd(name, `Use when writing release notes (${name}).`, `Always include ${MARKER}. Keep it short.`) });
}

const userText = (request: RecordedRequest): string => {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
};

export const isGateReplay = (request: RecordedRequest): boolean => {
  const system = (request.body?.messages ?? [])[0] as { role: string; content: unknown } | undefined;
  return system?.role === 'system' && typeof system.content === 'string' && system.content.startsWith(GATE_SYSTEM_START);
};

/** The first words of a chat's system prompt (src/agent/systemPrompt.ts KNACK_INSTRUCTIONS). */
export const CHAT_SYSTEM_START = 'You are Knack, a helpful assistant that runs in the user';

/** A reach request (docs/gate.md, "Reach") or a chat's first request: the chat's system prompt. */
export const isFirstChatShaped = (request: RecordedRequest): boolean => {
  const system = (request.body?.messages ?? [])[0] as { role: string; content: unknown } | undefined;
  return system?.role === 'system' && typeof system.content === 'string' && system.content.startsWith(CHAT_SYSTEM_START);
};

/** The description trial's proposal request (src/gate/descriptionTrial.ts PROPOSER_SYSTEM_V1). */
export const isProposer = (request: RecordedRequest): boolean => {
  const system = (request.body?.messages ?? [])[0] as { role: string; content: unknown } | undefined;
  return typeof system?.content === 'string' && system.content.startsWith('You write the one-line description of a skill');
};

/** The skill a replay invokes, or null for a baseline replay. */
export function invokedSkill(request: RecordedRequest): string | null {
  return /<skill name="([^"]+)">/.exec(userText(request))?.[1] ?? null;
}

/**
 * Answers every request from its content: gate replays by the effect of the invoked skill
 * (or the baseline), skills not listed answer like the baseline; anything else (the chat)
 * gets `chatReply`. `hold` (when given) is awaited before a replay is answered, so a test can
 * keep a run in flight for as long as it needs.
 */
export function answerByContent(
  server: ScriptedServer,
  effects: Record<string, SkillEffect | 'unavailable'>,
  options: { hold?: () => Promise<void>; chatReply?: string } = {},
): void {
  server.setFallback(async (request): Promise<Turn> => {
    if (!isGateReplay(request)) return { text: options.chatReply ?? 'Noted.' };
    if (options.hold) await options.hold();
    // Which skill's cases this is (markerCases' prompts start with the skill's name), and whether
    // the replay carries the skill.
    const caseOf = /([a-z0-9-]+) \d+: write the release note/.exec(userText(request))?.[1] ?? '';
    const effect = effects[caseOf];
    const withSkill = invokedSkill(request) !== null;
    if (effect === 'unavailable') return { error: { status: 503, message: 'The model is overloaded; try again later.' } };
    if (effect === 'hurts') return { text: withSkill ? 'Release note, shortened.' : `Release note. ${MARKER}` };
    if (effect === 'helps' && withSkill) return { text: `Release note. ${MARKER}` };
    return { text: 'Release note.' };
  });
}

/** A gate that keeps replays waiting until released (released on close too). */
export function holdGate(): { hold: () => Promise<void>; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { hold: () => held, release };
}

export const verification = (page: Page) => page.getByRole('region', { name: 'Verification' });

/** The verdict word shown once a run ended (the panel's strong word). */
export const verdictWord = (page: Page) => verification(page).locator('.verdict-line .word');

/** Opens the Skills view and the detail of one skill. */
export async function openSkillDetail(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Skills', exact: true }).click();
  await page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: new RegExp(`^${name}\\b`) }).click();
  await expect(page.getByRole('heading', { name, exact: true })).toBeVisible();
  await expect(verification(page)).toBeVisible();
}

/** Settings → Verification: automatic runs off, so only the test's Verify clicks start runs. */
export async function turnOffAutomaticRuns(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const toggle = page.getByRole('switch', { name: /Verify automatically/ });
  await expect(toggle).toBeVisible();
  if (await toggle.isChecked()) await toggle.uncheck();
  await expect(toggle).not.toBeChecked();
  await expect(page.getByText('Verification settings updated.')).toBeVisible();
}
