import { describe, expect, it } from 'vitest';
import { ChatController } from '../../../src/agent/chatSession';
import { MemorySessionBackend } from '../../../src/sessions/memorySessionBackend';
import { SessionStore } from '../../../src/sessions/sessionStore';
import { ToolRegistry } from '../../../src/tools/toolRegistry';
import { buildSkillInvocation } from '../../../src/skills/skillInvocation';
import { buildReplayMessages, buildReplayRequest, GATE_SYSTEM_V1, gateParams, promptWithFiles } from '../../../src/gate/replayRequest';
import type { ScorableCase } from '../../../src/gate/types';
import { fakeProvider } from '../helpers/fakeProvider';

const SKILL_MD = '---\nname: font-choice\ndescription: Pick fonts for Korean UI text.\n---\n\n# Fonts\n\nUse Pretendard, never Arial.\n';

function scorable(overrides: Partial<ScorableCase> = {}): ScorableCase {
  return {
    id: 1,
    prompt: 'Which font should the settings screen use?',
    messages: [],
    files: [],
    checks: [{ type: 'icontains', value: 'pretendard' }],
    source: false,
    ...overrides,
  };
}

/** What `/<skill> request` in chat actually sends as the user message. */
async function slashCommandUserMessage(skillName: string, markdown: string, request: string): Promise<string> {
  const fake = fakeProvider([{ text: 'ok' }]);
  const controller = new ChatController({
    store: new SessionStore(new MemorySessionBackend()),
    registry: new ToolRegistry([]),
    buildSystemPrompt: async () => 'chat system prompt',
    provider: async () => fake.provider,
    intervals: () => ({ creationNudgeInterval: 10, memoryNudgeInterval: 10 }),
    learning: { beforeUserTurn: () => undefined, afterTurn: (report) => report.counters },
    skills: { read: async (name) => (name === skillName ? markdown : null), bumpUse: async () => undefined },
  });
  expect(await controller.invokeSkill(skillName, request)).toBe(true);
  const sent = fake.requests[0]!.messages.at(-1)!;
  expect(sent.role).toBe('user');
  return sent.content;
}

describe('buildReplayMessages', () => {
  it('the with-skill user message equals the /<skill> chat message for the same skill and request', async () => {
    const testCase = scorable();
    const replayed = buildReplayMessages(testCase, 'skill', { name: 'font-choice', markdown: SKILL_MD }).at(-1)!.content;
    expect(replayed).toBe(await slashCommandUserMessage('font-choice', SKILL_MD, testCase.prompt));
    expect(replayed).toBe(buildSkillInvocation('font-choice', SKILL_MD, testCase.prompt));
  });

  it('baseline is [system, ...frozen turns, user prompt] with the gate system prompt and nothing else', () => {
    const testCase = scorable({
      messages: [
        { role: 'user', content: 'We are building a Korean banking app.' },
        { role: 'assistant', content: 'Understood.' },
      ],
    });
    expect(buildReplayMessages(testCase, 'baseline')).toEqual([
      { role: 'system', content: GATE_SYSTEM_V1 },
      { role: 'user', content: 'We are building a Korean banking app.' },
      { role: 'assistant', content: 'Understood.' },
      { role: 'user', content: testCase.prompt },
    ]);
  });

  it('the two arms differ only in the last user message', () => {
    const testCase = scorable({ messages: [{ role: 'user', content: 'context' }, { role: 'assistant', content: 'ok' }] });
    const base = buildReplayMessages(testCase, 'baseline');
    const skill = buildReplayMessages(testCase, 'skill', { name: 'font-choice', markdown: SKILL_MD });
    expect(skill.slice(0, -1)).toEqual(base.slice(0, -1));
    expect(skill.at(-1)!.content).not.toBe(base.at(-1)!.content);
  });

  it('injects the whole SKILL.md, however long', () => {
    const long = `${SKILL_MD}\n${'A line of guidance that goes on. '.repeat(3000)}\nLAST LINE`;
    const content = buildReplayMessages(scorable(), 'skill', { name: 'font-choice', markdown: long }).at(-1)!.content;
    expect(content).toContain(long);
    expect(content).toContain('LAST LINE');
  });

  it('inlines the case files after the prompt, in order, in both arms', () => {
    const testCase = scorable({
      files: [
        { path: 'a.css', text: 'body { font-family: Arial; }', sha256: 'x' },
        { path: 'b.txt', text: 'second', sha256: 'y' },
      ],
    });
    const withFiles = promptWithFiles(testCase);
    expect(withFiles).toBe(`${testCase.prompt}\n\n<file path="a.css">\nbody { font-family: Arial; }\n</file>\n\n<file path="b.txt">\nsecond\n</file>`);
    expect(buildReplayMessages(testCase, 'baseline').at(-1)!.content).toBe(withFiles);
    expect(buildReplayMessages(testCase, 'skill', { name: 'font-choice', markdown: SKILL_MD }).at(-1)!.content).toBe(
      buildSkillInvocation('font-choice', SKILL_MD, withFiles),
    );
  });

  it('refuses a with-skill arm without a skill', () => {
    expect(() => buildReplayMessages(scorable(), 'skill')).toThrow(/needs the skill/);
  });
});

describe('gate parameters', () => {
  it('are temperature 0, seed 7, 1,024 max tokens by default, and no tools', () => {
    expect(gateParams()).toEqual({ temperature: 0, seed: 7, maxTokens: 1024 });
    expect(gateParams(256).maxTokens).toBe(256);
    const request = buildReplayRequest(scorable(), 'baseline');
    expect(request.params).toEqual({ temperature: 0, seed: 7, maxTokens: 1024 });
    expect('tools' in request).toBe(false);
  });
});
