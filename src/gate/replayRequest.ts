/**
 * The exact request the gate replays for one arm of one case (docs/gate.md, "Replay").
 *
 * Isolated on purpose: a fixed system prompt, the case's frozen earlier turns, and the case's
 * prompt; no memory, no skill index, no tools. Nothing else can mask or help the skill under
 * test, and the baseline request is the same for every skill, so its answer is cached once.
 * The with-skill arm wraps the prompt with the very builder `/<skill-name>` uses in chat, so a
 * skill is measured in the form it is used.
 */
import type { ChatMessage } from '../providers/provider';
import { buildSkillInvocation } from '../skills/skillInvocation';
import type { ScorableCase } from './types';

/** Versioned: changing a word changes every cache key, which is what we want. */
export const GATE_SYSTEM_V1 = [
  'You are Knack, a helpful assistant.',
  "Answer the user's request directly and completely in this one reply.",
  'No tools are available here: do not call tools or offer to look anything up; work only with what is in this conversation.',
].join(' ');

/** Sampling parameters the gate sends; an absent field is not sent at all. */
export interface ReplayParams {
  temperature?: number;
  seed?: number;
  maxTokens: number;
}

export const GATE_TEMPERATURE = 0;
/** Any fixed integer: it only has to stay the same between runs. */
export const GATE_SEED = 7;
export const GATE_MAX_TOKENS = 1024;

export function gateParams(maxTokens = GATE_MAX_TOKENS): ReplayParams {
  return { temperature: GATE_TEMPERATURE, seed: GATE_SEED, maxTokens };
}

export type ReplayArmName = 'baseline' | 'skill';

export interface SkillUnderTest {
  name: string;
  /** The whole SKILL.md, never shortened. */
  markdown: string;
}

/** One request of a replay: the messages and the parameters, and never any tools. */
export interface ReplayRequest {
  messages: ChatMessage[];
  params: ReplayParams;
}

/** The case's prompt with each of its files inlined after it, in the order listed. */
export function promptWithFiles(testCase: Pick<ScorableCase, 'prompt' | 'files'>): string {
  if (testCase.files.length === 0) return testCase.prompt;
  const files = testCase.files.map((file) => `<file path="${file.path.replace(/"/g, '&quot;')}">\n${file.text}\n</file>`);
  return [testCase.prompt, ...files].join('\n\n');
}

/** `[system, ...case.messages, user]`, the user message carrying the skill in the skill arm. */
export function buildReplayMessages(testCase: ScorableCase, arm: ReplayArmName, skill?: SkillUnderTest): ChatMessage[] {
  const request = promptWithFiles(testCase);
  let user: string;
  if (arm === 'skill') {
    if (!skill) throw new Error('The with-skill arm needs the skill.');
    user = buildSkillInvocation(skill.name, skill.markdown, request);
  } else {
    user = request;
  }
  return [
    { role: 'system', content: GATE_SYSTEM_V1 },
    ...testCase.messages.map((message): ChatMessage => ({ role: message.role, content: message.content })),
    { role: 'user', content: user },
  ];
}

export function buildReplayRequest(
  testCase: ScorableCase,
  arm: ReplayArmName,
  skill?: SkillUnderTest,
  params: ReplayParams = gateParams(),
): ReplayRequest {
  return { messages: buildReplayMessages(testCase, arm, skill), params: { ...params } };
}
