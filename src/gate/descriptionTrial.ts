/**
 * The description trial (docs/gate.md, "Description trial"): the index line is what routes the
 * model to a skill, so when reach is low a new description is proposed and tried. The reach
 * cases are split (stratified: trigger cases and near misses apart); the proposer sees only the
 * training side, and the new description is kept only if, on the held-out side, more trigger
 * cases are reached and no more near misses load the skill. Otherwise it is discarded, with the
 * figures either way. The requests are reach requests (reach.ts) whose index line carries the
 * proposed description instead of the current one.
 */
import type { ChatMessage, ChatProvider } from '../providers/provider';
import { sha256Hex } from '../skills/ledger';
import { cutDescription } from '../skills/skillIndex';
import { measureReach, type ReachCase, type ReachInput } from './reach';
import type { FirstChatRequestBuilder } from './reachRequest';
import type { ReplayParams } from './replayRequest';
import type { ReplayCache } from './replayCache';
import { replayCacheKey } from './cacheKey';
import type { DescriptionTrial, TrialFigures } from './reachTypes';

export type { DescriptionTrial, TrialFigures } from './reachTypes';

/** Share of each group held out from the proposer (skill-creator's trigger evals use 0.4). */
export const TRIAL_HOLDOUT = 0.4;

/** Stratified, deterministic split: per group, the cases whose prompt hashes lowest are held out. */
export async function splitTrialCases(cases: ReachCase[]): Promise<{ train: ReachCase[]; heldOut: ReachCase[] }> {
  const hashed = await Promise.all(cases.map(async (testCase) => ({ testCase, hash: await sha256Hex(new TextEncoder().encode(`knack.trial.v1\n${testCase.prompt}`)) })));
  const heldOut = new Set<ReachCase>();
  for (const group of [true, false]) {
    const members = hashed.filter((item) => item.testCase.shouldTrigger === group).sort((a, b) => a.hash.localeCompare(b.hash));
    const count = members.length < 2 ? 0 : Math.max(1, Math.floor(members.length * TRIAL_HOLDOUT));
    for (const item of members.slice(0, count)) heldOut.add(item.testCase);
  }
  return { train: cases.filter((c) => !heldOut.has(c)), heldOut: cases.filter((c) => heldOut.has(c)) };
}

/** The same request builder, with the skill's index line carrying `description` instead. */
export function withIndexDescription(build: FirstChatRequestBuilder, indexName: string, current: string, description: string): FirstChatRequestBuilder {
  const from = `- ${indexName}: ${cutDescription(current)}`;
  const to = `- ${indexName}: ${cutDescription(description)}`;
  return async (prompt, model, measured) => {
    const request = await build(prompt, model, measured);
    const [system, ...rest] = request.messages;
    return { ...request, messages: [{ ...system!, content: system!.content.replace(from, to) }, ...rest] };
  };
}

/** Whether the proposed description is kept: more held-out cases reached, no more false triggers. */
export function keepDescription(before: TrialFigures, after: TrialFigures): boolean {
  return after.reached > before.reached && after.falseTriggers <= before.falseTriggers;
}

export interface TrialInput {
  reach: Omit<ReachInput, 'cases' | 'route'>;
  indexName: string;
  description: string;
  cases: ReachCase[];
  /** The review model's proposal from the training cases only; null when it gave none. */
  propose: (train: ReachCase[]) => Promise<string | null>;
}

const figuresOf = (reach: TrialFigures): TrialFigures => ({ reached: reach.reached, triggerCases: reach.triggerCases, falseTriggers: reach.falseTriggers, nearMisses: reach.nearMisses });

/** Runs the trial; null when there is nothing to hold out or no proposal different from the current one. */
export async function runDescriptionTrial(input: TrialInput): Promise<DescriptionTrial | null> {
  const { train, heldOut } = await splitTrialCases(input.cases);
  if (!heldOut.some((c) => c.shouldTrigger)) return null;
  const proposal = (await input.propose(train))?.trim();
  if (!proposal || cutDescription(proposal) === cutDescription(input.description)) return null;
  const before = await measureReach({ ...input.reach, cases: heldOut });
  const after = await measureReach({ ...input.reach, cases: heldOut, buildRequest: withIndexDescription(input.reach.buildRequest, input.indexName, input.description, proposal) });
  const figures = { before: figuresOf(before), after: figuresOf(after) };
  return { before: input.description, after: proposal, kept: keepDescription(figures.before, figures.after), figures, requests: before.cost.requests + after.cost.requests };
}

/** The proposer's instructions (versioned with the words: a change is a new request). */
export const PROPOSER_SYSTEM_V1 = [
  'You write the one-line description of a skill: the line an assistant reads in its skill index to decide whether to load the skill.',
  'Reply with the new description only, on one line: at most 60 characters, starting with "Use when", in the words users actually use for the requests below.',
  'It must fit the requests the skill is for and not the ones it is not for.',
].join(' ');

/** The proposer's request: the skill's current line and the training cases only. */
export function proposerMessages(skill: { name: string; description: string; markdown: string }, train: ReachCase[]): ChatMessage[] {
  const list = (cases: ReachCase[]) => (cases.length ? cases.map((c) => `- ${c.prompt}`).join('\n') : '- (none)');
  const user = [
    `Skill: ${skill.name}`,
    `Current description: ${skill.description}`,
    'Requests it should be loaded for:',
    list(train.filter((c) => c.shouldTrigger)),
    'Requests it must not be loaded for:',
    list(train.filter((c) => !c.shouldTrigger)),
    'The skill (first 1,500 characters):',
    skill.markdown.slice(0, 1500),
  ].join('\n');
  return [
    { role: 'system', content: PROPOSER_SYSTEM_V1 },
    { role: 'user', content: user },
  ];
}

/** The first line of the proposer's answer, without quotes; null when it gave none. */
export function proposalOf(answer: string): string | null {
  const line = answer.split('\n').map((text) => text.trim()).find((text) => text !== '');
  const clean = line?.replace(/^["'“]+|["'”]+$/g, '').trim();
  return clean ? clean.slice(0, 200) : null;
}

export interface ProposerInput {
  provider: ChatProvider;
  providerId: string;
  params: ReplayParams;
  cache: ReplayCache;
  signal?: AbortSignal;
}

/** Asks the model for a description (one request, no tools), cached like a replay by the exact request. */
export async function proposeDescription(input: ProposerInput, messages: ChatMessage[]): Promise<string | null> {
  const params: ReplayParams = { ...input.params, maxTokens: 200 };
  const key = await replayCacheKey({ provider: input.providerId, model: input.provider.model, params, messages });
  const cached = await input.cache.get(key);
  if (cached) return proposalOf(cached.answerText);
  let text = '';
  const stream = input.provider.stream({
    messages,
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(params.seed !== undefined ? { seed: params.seed } : {}),
    maxTokens: params.maxTokens,
    signal: input.signal,
  });
  for await (const part of stream) if (part.type === 'text-delta') text += part.text;
  if (text.trim() !== '') await input.cache.put(key, input.providerId, { status: 'ok', answerText: text, rawText: text, finishReason: 'stop', usage: {} });
  return proposalOf(text);
}
