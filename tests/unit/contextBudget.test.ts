import { describe, expect, it } from 'vitest';
import { compactionThreshold, countRequest, maxTokensFor, planFor, replyReserve } from '../../src/agent/contextBudget';
import { firstSentence, toolsInForm } from '../../src/agent/compactTools';
import { boundedSummary, compactConversation, tailBudgetOf, tailStart, SUMMARY_INSTRUCTIONS } from '../../src/agent/compaction';
import { assembleHistory, splitLines, SUMMARY_HEADING } from '../../src/agent/historyView';
import { fitRequest, leftOutCallsNote, leftOutNote } from '../../src/agent/requestFit';
import type { ChatLine } from '../../src/agent/chatLines';
import { toolSpecs } from '../../src/agent/agentLoop';
import { ToolRegistry } from '../../src/tools/toolRegistry';
import { memoryToolDefinition } from '../../src/memory/memoryTool';
import { MemoryStore } from '../../src/memory/memoryStore';
import { MemoryLockManager } from '../../src/storage/memoryFileStore';
import { systemPromptParts } from '../../src/agent/systemPrompt';
import { mostUsefulEntries } from '../../src/memory/memoryEntries';
import { charCounter } from './helpers/charCounter';
import { createTestEngine } from './helpers/skillTestEngine';
import { prng as seededRandom } from '../fixtures/seededRandom';

function realTools() {
  const t = createTestEngine();
  const memory = new MemoryStore({ files: t.files, locks: new MemoryLockManager() });
  return toolSpecs(new ToolRegistry([memoryToolDefinition({ store: memory }), ...t.registry.definitions()]));
}

let seq = 0;
const line = (role: ChatLine['role'], content: string, extra: Partial<ChatLine> = {}): ChatLine => ({ id: `m${seq}`, seq: seq++, role, content, ...extra });

/** A conversation of `turns` turns; every third turn calls a tool with a long result. */
function conversation(turns: number, random = seededRandom(7)): ChatLine[] {
  seq = 0;
  const lines: ChatLine[] = [];
  for (let turn = 0; turn < turns; turn++) {
    lines.push(line('user', `Request ${turn}: ${'please help with this '.repeat(1 + Math.floor(random() * 6))}`));
    if (turn % 3 === 1) {
      lines.push(line('assistant', '', { toolCalls: [{ id: `c${turn}`, name: 'skill_view', arguments: `{"name":"s${turn}"}` }] }));
      lines.push(line('tool', `{"success":true,"content":"${'x'.repeat(200 + Math.floor(random() * 3000))}"}`, { toolCallId: `c${turn}`, name: 'skill_view' }));
    }
    lines.push(line('assistant', `Answer ${turn}: ${'here is the answer '.repeat(2 + Math.floor(random() * 40))}`));
  }
  return lines;
}

/** Every call in the messages has its result right after its reply, and every result a call. */
function pairedCalls(messages: ReturnType<typeof fitRequest>['messages']): boolean {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (open.size) return false;
      for (const call of message.toolCalls ?? []) open.add(call.id);
    } else if (message.role === 'tool') {
      if (!open.delete(message.toolCallId!)) return false;
    } else if (open.size) return false;
  }
  return open.size === 0;
}

describe('planFor', () => {
  it('reserves the reply and a margin; a small window compacts only at the prompt limit, a large one at half the window', () => {
    const plan = planFor(4096);
    expect(plan.replyTokens).toBe(1024);
    expect(plan.reserveTokens).toBe(1024);
    expect(plan.promptLimit + plan.replyTokens + plan.marginTokens).toBe(4096);
    expect(plan.small).toBe(true);
    expect(plan.compactAt).toBe(plan.promptLimit);
    expect(compactionThreshold(plan, 1300)).toBe(plan.promptLimit);
    const large = planFor(131_072);
    expect(large.small).toBe(false);
    expect(large.compactAt).toBe(65_536);
    expect(compactionThreshold(large, 3000)).toBe(65_536);
    expect(plan.indexTokens).toBe(368);
    expect(plan.toolForm).toBe('minimal');
    expect(planFor(8192).toolForm).toBe('compact');
    expect(planFor(2048).toolForm).toBe('minimal');
    expect(planFor(2048).indexNamesOnly).toBe(true);
    expect(planFor(1024).toolForm).toBe('none');
    expect(planFor(131_072).toolForm).toBe('full');
    expect(planFor(131_072).indexTokens).toBe(2500);
  });

  it('takes the compaction share of a large window from the setting, within sane bounds', () => {
    expect(planFor(32_768, 0.7).compactAt).toBe(Math.min(planFor(32_768).promptLimit, Math.floor(32_768 * 0.7)));
    expect(planFor(32_768, 5).compactAt).toBeLessThanOrEqual(planFor(32_768).promptLimit);
    // A small window's threshold is the fit rule whatever the share.
    expect(planFor(8192, 0.3).compactAt).toBe(planFor(8192).promptLimit);
  });

  it('sizes the reply reserve from measured replies, between a sixteenth of the window and the full reply', () => {
    expect(replyReserve(1024, 4096, null)).toBe(1024);
    expect(replyReserve(1024, 4096, 230)).toBe(Math.ceil(230 * 1.25) + 32);
    expect(replyReserve(1024, 4096, 20)).toBe(256);
    expect(replyReserve(1024, 4096, 5000)).toBe(1024);
    const measured = planFor(4096, 0.5, 230);
    expect(measured.promptLimit).toBe(4096 - measured.marginTokens - measured.reserveTokens);
    expect(measured.promptLimit).toBeGreaterThan(planFor(4096).promptLimit + 600);
  });

  it('asks for what the window leaves after the prompt, up to the reply, so prompt and reply never pass the window', () => {
    const plan = planFor(4096, 0.5, 230);
    for (const prompt of [0, 900, 2500, plan.promptLimit]) {
      const maxTokens = maxTokensFor(plan, prompt);
      expect(prompt + maxTokens + plan.marginTokens).toBeLessThanOrEqual(4096);
      expect(maxTokens).toBeGreaterThanOrEqual(Math.min(plan.replyTokens, plan.reserveTokens));
    }
    expect(maxTokensFor(plan, 100)).toBe(plan.replyTokens);
  });
});

describe('compact tool schemas', () => {
  it('keep every parameter, its type, enum and required list while the words shrink', () => {
    const tools = realTools();
    const full = charCounter.countTools(tools);
    const compact = toolsInForm(tools, 'compact');
    const minimal = toolsInForm(tools, 'minimal');
    expect(charCounter.countTools(compact)).toBeLessThan(full * 0.7);
    expect(charCounter.countTools(minimal)).toBeLessThan(charCounter.countTools(compact));
    const strip = (schema: unknown): unknown =>
      JSON.parse(JSON.stringify(schema, (key, value) => (key === 'description' || key === 'examples' || key === 'default' ? undefined : value)));
    tools.forEach((tool, at) => {
      expect(compact[at]!.name).toBe(tool.name);
      expect(strip(compact[at]!.parameters)).toEqual(strip(tool.parameters));
      expect(strip(minimal[at]!.parameters)).toEqual(strip(tool.parameters));
      expect(JSON.stringify(minimal[at]!.parameters)).not.toContain('"description"');
    });
  });

  it('cut a description at its first sentence, on a word', () => {
    expect(firstSentence('Load a skill. Then follow it.', 100)).toBe('Load a skill.');
    expect(firstSentence('one two three four five six', 12)).toBe('one two…');
  });
});

describe('fitRequest', () => {
  const tools = toolsInForm(realTools(), 'compact');
  const system = 'You are Knack.';

  it('never passes the prompt limit, and never separates a call from its result', () => {
    const random = seededRandom(11);
    for (let round = 0; round < 60; round++) {
      const window = [1024, 2048, 4096, 8192][round % 4]!;
      const plan = planFor(window);
      const lines = conversation(1 + Math.floor(random() * 40), random);
      const formTools = toolsInForm(realTools(), plan.toolForm);
      const fit = fitRequest({ lines, summary: null, systemPrompt: system, tools: formTools, counter: charCounter, plan });
      expect(fit.tokens).toBe(countRequest(charCounter, system, fit.messages, formTools));
      expect(fit.tokens).toBeLessThanOrEqual(plan.promptLimit);
      expect(pairedCalls(fit.messages)).toBe(true);
      expect(fit.messages[0]!.role).toBe('user');
    }
  });

  it('sends the stored summary in place of what it covers, as the assistant’s, between the first request and the rest', () => {
    const lines = conversation(10);
    const throughSeq = lines[lines.findIndex((l, at) => at >= 12 && l.role === 'user') - 1]!.seq;
    const summary = { text: 'Goal: build the Heron project.', throughSeq, at: 1, count: 1 };
    const fit = fitRequest({ lines, summary, systemPrompt: system, tools, counter: charCounter, plan: planFor(32_768) });
    expect(fit.messages[0]).toEqual({ role: 'user', content: lines[0]!.content });
    expect(fit.messages[1]).toEqual({ role: 'assistant', content: `${SUMMARY_HEADING}\nGoal: build the Heron project.` });
    const firstKept = lines.find((l) => l.seq > throughSeq)!;
    expect(fit.messages[2]!.content).toBe(firstKept.content);
    expect(fit.summaryTokens).toBeGreaterThan(0);
  });

  it('joins the summary to the first request when the rest starts inside a turn', () => {
    const joined = assembleHistory([{ role: 'user', content: 'first' }], 'the summary', [{ role: 'assistant', content: 'step', toolCalls: [] }]);
    expect(joined).toHaveLength(2);
    expect(joined[0]!.content).toContain('the summary');
  });

  it('cuts large tool results before the latest reply block, but not in it', () => {
    seq = 0;
    const big = 'y'.repeat(4000);
    const lines = [
      line('user', 'go'),
      line('assistant', '', { toolCalls: [{ id: 'a', name: 'skill_view', arguments: '{}' }] }),
      line('tool', big, { toolCallId: 'a', name: 'skill_view' }),
      line('assistant', '', { toolCalls: [{ id: 'b', name: 'skill_view', arguments: '{}' }] }),
      line('tool', big, { toolCallId: 'b', name: 'skill_view' }),
    ];
    const fit = fitRequest({ lines, summary: null, systemPrompt: system, tools: [], counter: charCounter, plan: planFor(8192) });
    expect(fit.cutResults).toBe(1);
    expect(fit.messages[2]!.content).toContain('[cut to save room');
    expect(fit.messages[4]!.content).toBe(big);
  });

  it('the last resort cuts a 1 MB tool call’s arguments for the request, keeps the turn’s request and the small error result whole, all valid JSON', () => {
    seq = 0;
    const content = `---\nname: huge\n---\n${'z'.repeat(1_000_000)}`;
    const args = JSON.stringify({ action: 'create', name: 'huge', content });
    const error = JSON.stringify({ success: false, error: `Content is ${content.length} characters (limit: 100,000). Consider splitting it into files; nothing was written.` });
    const lines = [
      line('user', 'Turn 1: plan the Heron project.'),
      line('assistant', 'Plan: first step.'),
      line('user', 'Save that as a skill.'),
      line('assistant', '', { toolCalls: [{ id: 'big', name: 'skill_manage', arguments: args }] }),
      line('tool', error, { toolCallId: 'big', name: 'skill_manage' }),
    ];
    const plan = planFor(4096);
    const fit = fitRequest({ lines, summary: null, systemPrompt: system, tools, counter: charCounter, plan });
    expect(fit.tokens).toBeLessThanOrEqual(plan.promptLimit);
    expect(fit.wholeTokens).toBeGreaterThan(200_000);
    expect(fit.leftOut).toBe(0);
    expect(fit.messages.map((m) => m.content)).toContain('Save that as a skill.');
    const call = fit.messages.find((m) => m.toolCalls?.length)!.toolCalls![0]!;
    const sent = JSON.parse(call.arguments) as { action: string; name: string; content: string };
    expect(sent).toMatchObject({ action: 'create', name: 'huge' });
    expect(sent.content).toMatch(/\[cut to save room in the context window: \d+ more characters/);
    expect(fit.messages.at(-1)!.content).toBe(error);
    // The stored line keeps every character.
    expect(lines[3]!.toolCalls![0]!.arguments).toBe(args);
  });

  it('a reply of 200 tool calls that no cut fits leaves out its last calls with their results, with a note, and keeps the first (the ones that ran)', () => {
    seq = 0;
    const calls = Array.from({ length: 200 }, (_, i) => ({ id: `call-${i}`, name: 'skills_list', arguments: '{}' }));
    const lines = [
      line('user', 'List the skills, again and again.'),
      line('assistant', 'Checking the skills again.', { toolCalls: calls }),
      ...calls.map((call, i) => line('tool', JSON.stringify({ success: true, skills: [{ name: `skill-${i}`, description: 'Use when checking the library. '.repeat(4) }] }), { toolCallId: call.id, name: 'skills_list' })),
    ];
    for (const window of [4096, 16_384]) {
      const plan = planFor(window);
      const fit = fitRequest({ lines, summary: null, systemPrompt: system, tools, counter: charCounter, plan });
      expect(fit.tokens).toBeLessThanOrEqual(plan.promptLimit);
      expect(maxTokensFor(plan, fit.tokens)).toBe(plan.replyTokens);
      expect(pairedCalls(fit.messages)).toBe(true);
      const reply = fit.messages.find((m) => m.toolCalls?.length)!;
      expect(reply.toolCalls!.length).toBeLessThan(200);
      expect(reply.toolCalls![0]!.id).toBe('call-0');
      expect(fit.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(reply.toolCalls!.map((call) => call.id));
      expect(reply.content).toContain(leftOutCallsNote(200 - reply.toolCalls!.length, 200));
      expect(fit.messages.map((m) => m.content)).toContain('List the skills, again and again.');
    }
    // The stored reply keeps all its calls.
    expect(lines[1]!.toolCalls).toHaveLength(200);
  });

  it('every tool result the fit cuts is still valid JSON with its boolean success', () => {
    const random = seededRandom(5);
    for (let round = 0; round < 30; round++) {
      seq = 0;
      const lines: ChatLine[] = [line('user', 'go')];
      for (let call = 0; call < 1 + Math.floor(random() * 5); call++) {
        const result = JSON.stringify({ success: true, name: `s${call}`, content: 'q"\\ü'.repeat(200 + Math.floor(random() * 4000)), files: ['a.md', 'b.md'] });
        lines.push(line('assistant', '', { toolCalls: [{ id: `c${call}`, name: 'skill_view', arguments: `{"name":"s${call}"}` }] }));
        lines.push(line('tool', result, { toolCallId: `c${call}`, name: 'skill_view' }));
      }
      const plan = planFor([2048, 4096][round % 2]!);
      const fit = fitRequest({ lines, summary: null, systemPrompt: system, tools, counter: charCounter, plan });
      expect(fit.tokens).toBeLessThanOrEqual(plan.promptLimit);
      for (const message of fit.messages.filter((m) => m.role === 'tool')) expect(typeof JSON.parse(message.content).success).toBe('boolean');
      for (const message of fit.messages) for (const call of message.toolCalls ?? []) expect(() => JSON.parse(call.arguments)).not.toThrow();
    }
  });

  it('leaves whole blocks out from the oldest with a note when even the cuts do not fit', () => {
    const lines = conversation(40);
    const plan = planFor(2048);
    const fit = fitRequest({ lines, summary: null, systemPrompt: system, tools, counter: charCounter, plan });
    expect(fit.leftOut).toBeGreaterThan(0);
    expect(fit.messages[1]!.content).toContain(leftOutNote(fit.leftOut));
    expect(fit.messages[2]!.role).toBe('user');
    expect(fit.messages.at(-1)!.content).toBe(lines.at(-1)!.content);
  });
});

describe('compaction', () => {
  it('keeps the latest turns within the tail budget and summarises the rest', () => {
    const lines = conversation(12);
    const rest = splitLines(lines, null).rest;
    const start = tailStart(rest, charCounter, 200)!;
    expect(['user', 'assistant']).toContain(rest[start]!.role);
    expect(tailStart(rest, charCounter, 0)).toBe(rest.map((l) => l.role).lastIndexOf('assistant') > rest.map((l) => l.role).lastIndexOf('user') ? rest.length - 1 : start);
  });

  it('summarises a middle too big for one request in pieces, each request within the window', async () => {
    const lines = conversation(60);
    const plan = planFor(2048);
    const prompts: string[] = [];
    const summary = await compactConversation(
      {
        lines,
        summary: { text: 'Earlier: the user is Ada.', throughSeq: -1, at: 0, count: 1 },
        counter: charCounter,
        plan,
        fixedTokens: 500,
        now: 5,
        summarise: async ({ system, prompt, maxTokens }) => {
          prompts.push(prompt);
          expect(charCounter.countText(system) + charCounter.countText(prompt) + maxTokens + 16).toBeLessThanOrEqual(plan.window);
          return `Summary ${prompts.length}; the user is Ada.`;
        },
      },
      splitLines(lines, null).rest,
    );
    expect(prompts.length).toBeGreaterThan(1);
    expect(prompts[0]).toContain('Earlier: the user is Ada.');
    expect(prompts[1]).toContain('Summary 1');
    expect(summary).toMatchObject({ count: 2, at: 5 });
    expect(summary!.text).toContain('Ada');
    const rest = splitLines(lines, summary).rest;
    expect(['user', 'assistant']).toContain(rest[0]!.role);
  });

  it('makes one request per summary, with max_tokens its room: a summary that comes back too long is cut, never asked for again', async () => {
    const lines = conversation(8);
    const plan = planFor(4096);
    const asked: number[] = [];
    const summary = await compactConversation(
      { lines, summary: null, counter: charCounter, plan, fixedTokens: 300, now: 1, summarise: async ({ maxTokens }) => (asked.push(maxTokens), 'word\n'.repeat(plan.summaryTokens * 3)) },
      splitLines(lines, null).rest,
    );
    expect(asked).toEqual([plan.summaryTokens]);
    expect(charCounter.countText(summary!.text)).toBeLessThanOrEqual(plan.summaryTokens);
  });

  it('drops the half line of a summary the server stopped at max_tokens, and keeps one within its room whole', () => {
    expect(boundedSummary({ text: 'Facts from the user:\n- Heron\n- the bud', cut: true }, charCounter, 100)).toBe('Facts from the user:\n- Heron');
    expect(boundedSummary({ text: 'Facts from the user:\n- Heron', cut: false }, charCounter, 100)).toBe('Facts from the user:\n- Heron');
    expect(boundedSummary('  a summary  ', charCounter, 100)).toBe('a summary');
  });

  it('compacts a small window deep: the tail keeps a quarter of the room, a large one half', () => {
    const small = planFor(4096, 0.5, 230);
    const large = planFor(65_536);
    expect(tailBudgetOf(small, 1300)).toBe(Math.floor((small.promptLimit - 1300 - small.summaryTokens) * 0.25));
    expect(tailBudgetOf(large, 3000)).toBe(Math.floor((compactionThreshold(large, 3000) - 3000 - large.summaryTokens) * 0.5));
  });

  it('throws when the model fails, so the caller can leave the oldest turns out instead', async () => {
    const lines = conversation(8);
    await expect(
      compactConversation(
        { lines, summary: null, counter: charCounter, plan: planFor(4096), fixedTokens: 300, now: 1, summarise: async () => Promise.reject(new Error('model down')) },
        splitLines(lines, null).rest,
      ),
    ).rejects.toThrow('model down');
  });

  it('has nothing to do for a conversation that is only its latest block', async () => {
    seq = 0;
    const lines = [line('user', 'hi'), line('assistant', 'hello')];
    const summary = await compactConversation(
      { lines, summary: null, counter: charCounter, plan: planFor(4096), fixedTokens: 300, now: 1, summarise: async () => 'x' },
      splitLines(lines, null).rest,
    );
    expect(summary).toBeNull();
    expect(SUMMARY_INSTRUCTIONS).toContain('Facts from the user');
  });
});

describe('prompt parts and memory', () => {
  it('splits a frozen prompt into instructions, memory and the skill index', () => {
    const prompt = `You are Knack.\n\nGuidance.\n\n${'═'.repeat(46)}\nMEMORY\n${'═'.repeat(46)}\nLikes tea.\n\n## Skills\n- tea: brew tea`;
    const parts = systemPromptParts(prompt);
    expect(parts.instructions).toBe('You are Knack.\n\nGuidance.');
    expect(parts.memory).toContain('Likes tea.');
    expect(parts.skills).toBe('## Skills\n- tea: brew tea');
  });

  it('keeps the entries that share words with the request, then the newest, within the room', () => {
    const entries = ['Project Heron uses Rust.', 'Likes short answers.', 'Deploys on Fridays.', 'Timezone is CET.'];
    expect(mostUsefulEntries(entries, 1000)).toEqual(entries);
    const kept = mostUsefulEntries(entries, 45, 'How do I build heron?');
    expect(kept).toContain('Project Heron uses Rust.');
    expect(kept).toContain('Timezone is CET.');
    expect(kept.join('\n§\n').length).toBeLessThanOrEqual(45);
  });
});
