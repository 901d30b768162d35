import { describe, expect, it } from 'vitest';
import {
  ChatController,
  lineFromModel,
  lineFromStored,
  messageToStore,
  skillInvocationOf,
  titleFrom,
  toModelHistory,
  type ChatLine,
  type ChatSessionDeps,
  type ChatSessionEvent,
  type TurnLearning,
} from '../../src/agent/chatSession';
import { sessionPromptBuilder } from '../../src/agent/sessionPrompt';
import { MemorySessionBackend } from '../../src/sessions/memorySessionBackend';
import { SessionStore } from '../../src/sessions/sessionStore';
import { SkillIndex } from '../../src/skills/skillIndex';
import { MemoryStore } from '../../src/memory/memoryStore';
import { memoryToolDefinition } from '../../src/memory/memoryTool';
import { MemoryLockManager } from '../../src/storage/memoryFileStore';
import { ToolRegistry } from '../../src/tools/toolRegistry';
import { ProviderError, type ChatProvider } from '../../src/providers/provider';
import { fakeProvider, type FakeTurn } from './helpers/fakeProvider';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';

function setup(turns: FakeTurn[] = [], options: { intervals?: { creationNudgeInterval: number; memoryNudgeInterval: number } } = {}) {
  const t = createTestEngine();
  const memory = new MemoryStore({ files: t.files, locks: new MemoryLockManager() });
  const registry = new ToolRegistry([memoryToolDefinition({ store: memory }), ...t.registry.definitions()]);
  const index = new SkillIndex(t.engine.catalog, async () => new Map());
  const store = new SessionStore(new MemorySessionBackend());
  const fake = fakeProvider(turns);
  const learningCalls: Parameters<TurnLearning['afterTurn']>[0][] = [];
  const beforeCalls: string[] = [];
  let currentProvider: ChatProvider = fake.provider;
  const deps: ChatSessionDeps = {
    store,
    registry,
    buildSystemPrompt: sessionPromptBuilder({
      registry,
      index,
      skillSettings: () => t.settings,
      memorySnapshot: async () => (await memory.memorySnapshot()).text,
    }),
    provider: async () => currentProvider,
    intervals: () => options.intervals ?? { creationNudgeInterval: 10, memoryNudgeInterval: 10 },
    learning: {
      beforeUserTurn: (id) => void beforeCalls.push(id),
      afterTurn: (report) => {
        learningCalls.push(structuredClone(report));
        return report.counters;
      },
    },
    skills: {
      read: async (name) => {
        const entry = t.engine.catalog.resolve(name)[0];
        return entry ? await t.files.readText(`${entry.dir}/SKILL.md`) : null;
      },
      bumpUse: (name) => t.engine.usage.bumpUse(name),
    },
  };
  const events: ChatSessionEvent[] = [];
  const controller = new ChatController(deps);
  controller.subscribe((event) => events.push(event));
  return {
    t,
    memory,
    store,
    deps,
    fake,
    controller,
    events,
    learningCalls,
    beforeCalls,
    useProvider: (provider: ChatProvider) => (currentProvider = provider),
  };
}

describe('chat session', () => {
  it('creates the session on the first message, streams the reply and persists both', async () => {
    const { controller, store, events, fake, learningCalls, beforeCalls } = setup([{ text: 'Hello there, friend.' }]);
    expect(await controller.send('Hi! How do I brew green tea?')).toBe(true);
    const sessionId = controller.sessionId!;
    const session = await store.get(sessionId);
    expect(session?.title).toBe('Hi! How do I brew green tea?');
    expect((await store.messages(sessionId)).map((m) => [m.seq, m.role, m.content])).toEqual([
      [0, 'user', 'Hi! How do I brew green tea?'],
      [1, 'assistant', 'Hello there, friend.'],
    ]);
    // Drafts grow word by word, then the finished line replaces the draft.
    const drafts = events.filter((e) => e.type === 'draft').map((e) => (e as { text: string }).text);
    expect(drafts).toContain('Hello there, ');
    expect(events.at(-1)).toEqual({ type: 'turn-end', end: 'final', problem: null });
    expect(fake.requests[0]!.messages.slice(1)).toEqual([{ role: 'user', content: 'Hi! How do I brew green tea?' }]);
    expect(beforeCalls).toEqual([sessionId]);
    expect(learningCalls).toHaveLength(1);
    expect(learningCalls[0]).toMatchObject({ sessionId, end: 'final', finalReply: 'Hello there, friend.' });
    expect(learningCalls[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('stores a new session with the chat model chosen for it', async () => {
    const s = setup([{ text: 'Hi.' }]);
    s.deps.chatModel = () => ({ providerId: 'hosted', model: 'big' });
    await s.controller.send('Hello');
    expect((await s.store.get(s.controller.sessionId!))?.chatModel).toEqual({ providerId: 'hosted', model: 'big' });
  });

  it('freezes the system prompt (memory snapshot + skill index) for the session; new skills show up next session', async () => {
    const s = setup();
    await s.t.manage({ action: 'create', name: 'brew-tea', content: skillContent('brew-tea', 'Use when brewing tea.') });
    await s.memory.add('user', 'The user drinks oolong.');
    s.fake.provider.stream = fakeProvider([
      { toolCalls: [{ name: 'skill_manage', arguments: JSON.stringify({ action: 'create', name: 'grind-coffee', content: skillContent('grind-coffee', 'Use when grinding coffee.') }) }] },
      { text: 'Saved a coffee skill.' },
      { text: 'Second reply.' },
      { text: 'New session reply.' },
    ]).provider.stream;
    const requests: string[] = [];
    const inner = s.fake.provider.stream.bind(s.fake.provider);
    s.fake.provider.stream = (request) => {
      requests.push(request.messages[0]!.content);
      return inner(request);
    };
    await s.controller.send('tea please');
    await s.controller.send('and again');
    const first = requests[0]!;
    expect(first).toContain('brew-tea: Use when brewing tea.');
    expect(first).toContain('The user drinks oolong.');
    expect(first).not.toContain('grind-coffee');
    expect(requests).toHaveLength(3);
    for (const prompt of requests) expect(prompt).toBe(first);
    expect((await s.store.get(s.controller.sessionId!))!.snapshot).toBe(first);

    // A resumed session reuses the stored prompt; a new one sees the new skill.
    const resumed = await ChatController.open(s.deps, s.controller.sessionId!);
    expect(resumed.lines.map((l) => l.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    const next = new ChatController(s.deps);
    await next.send('coffee?');
    expect(requests.at(-1)).toContain('grind-coffee: Use when grinding coffee.');
  });

  it('persists tool calls and results and keeps the learning counters per session', async () => {
    const { controller, store } = setup([
      { toolCalls: [{ name: 'skills_list', arguments: '{}' }] },
      { toolCalls: [{ name: 'memory', arguments: JSON.stringify({ action: 'add', target: 'user', content: 'Likes short answers.' }) }] },
      { text: 'Done.' },
    ]);
    await controller.send('remember I like short answers');
    const sessionId = controller.sessionId!;
    const messages = await store.messages(sessionId);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(messages[1]!.toolCalls![0]).toMatchObject({ name: 'skills_list' });
    expect(messages[2]!.toolCallId).toBe(messages[1]!.toolCalls![0]!.id);
    expect(JSON.parse(messages[4]!.content).success).toBe(true);
    // 3 model calls with skill_manage available; memory dispatched → turnsSinceMemory reset.
    expect(await store.get(sessionId)).toMatchObject({ itersSinceSkill: 3, turnsSinceMemory: 0 });
  });

  it('shows a provider error with its hint and leaves the chat usable', async () => {
    const { controller, events, store } = setup([
      { error: new ProviderError('cors', 'The server refused this page (CORS).', 'Set OLLAMA_ORIGINS=* and restart Ollama.') },
      { text: 'Working now.' },
    ]);
    await controller.send('hello');
    expect(events.at(-1)).toEqual({
      type: 'turn-end',
      end: 'error',
      problem: { message: 'The server refused this page (CORS).', hint: 'Set OLLAMA_ORIGINS=* and restart Ollama.' },
    });
    expect(controller.running).toBe(false);
    expect(await controller.regenerate()).toBe(true);
    expect((await store.messages(controller.sessionId!)).map((m) => m.content)).toEqual(['hello', 'Working now.']);
  });

  it('a provider that cannot be created ends the turn with its message', async () => {
    const s = setup();
    s.deps.provider = async () => {
      throw new ProviderError('model', 'No model chosen.', 'Choose one under Settings.');
    };
    await s.controller.send('hello');
    expect(s.events.at(-1)).toMatchObject({ type: 'turn-end', end: 'error', problem: { hint: 'Choose one under Settings.' } });
    expect(s.controller.lines.map((l) => l.content)).toEqual(['hello']);
  });

  it('Stop keeps the partial text, marks it stopped and the next send works', async () => {
    const { controller, store, learningCalls, fake } = setup([{ hang: true }, { text: 'Fresh answer.' }]);
    const sending = controller.send('long story please');
    await fake.hanging;
    expect(controller.running).toBe(true);
    controller.stop();
    await sending;
    const sessionId = controller.sessionId!;
    const stored = await store.messages(sessionId);
    expect(stored.map((m) => [m.role, m.content, (m as { stopped?: boolean }).stopped])).toEqual([
      ['user', 'long story please', undefined],
      ['assistant', 'partial ', true],
    ]);
    expect(learningCalls[0]).toMatchObject({ end: 'stopped', finalReply: null });
    expect(await controller.send('again')).toBe(true);
    expect(controller.lines.at(-1)).toMatchObject({ role: 'assistant', content: 'Fresh answer.' });
    // After a reload the stop mark is still there.
    const reopened = await ChatController.open({ ...setup().deps, store }, sessionId);
    expect(reopened.lines[1]).toMatchObject({ content: 'partial ', stopped: true });
  });

  it('an empty reply says so on a stored line that keeps the reasoning, and the model never sees it', async () => {
    const { controller, store, events, fake, learningCalls } = setup([{ reasoning: 'They want a haiku? Unsure.' }, { text: 'Here it is.' }]);
    await controller.send('write me something');
    expect(events.at(-1)).toEqual({ type: 'turn-end', end: 'final', problem: null, notice: 'empty' });
    expect(controller.lines.at(-1)).toMatchObject({ role: 'assistant', content: '', empty: true, reasoning: 'They want a haiku? Unsure.' });
    const sessionId = controller.sessionId!;
    const stored = await store.messages(sessionId);
    expect(stored).toHaveLength(2);
    expect(stored[1]).toMatchObject({ role: 'assistant', content: '', empty: true, reasoning: 'They want a haiku? Unsure.' });
    expect(learningCalls[0]!.messages.map((m) => m.role)).toEqual(['user']);
    // After a reload the notice and the reasoning are still there.
    const reopened = await ChatController.open({ ...setup().deps, store }, sessionId);
    expect(reopened.lines[1]).toMatchObject({ empty: true, reasoning: 'They want a haiku? Unsure.' });
    // The next request carries no empty assistant message.
    await controller.send('a poem, please');
    expect(fake.requests[1]!.messages.slice(1).map((m) => m.role)).toEqual(['user', 'user']);
  });

  it('a cut-off reply keeps its text, is flagged (stored too), shows no problem, and regenerate retries it', async () => {
    const { controller, store, events, fake } = setup([{ text: 'The first half', finish: 'cut-off' }, { text: 'The whole answer.' }]);
    await controller.send('explain');
    expect(events.at(-1)).toEqual({ type: 'turn-end', end: 'error', problem: null, notice: 'cut-off' });
    expect(controller.lines.at(-1)).toMatchObject({ role: 'assistant', content: 'The first half', cutOff: true });
    const sessionId = controller.sessionId!;
    expect((await store.messages(sessionId))[1]).toMatchObject({ content: 'The first half', cutOff: true });
    const reopened = await ChatController.open({ ...setup().deps, store }, sessionId);
    expect(reopened.lines[1]).toMatchObject({ cutOff: true });

    expect(await controller.regenerate()).toBe(true);
    expect(fake.requests[1]!.messages.slice(1).map((m) => m.content)).toEqual(['explain']);
    expect((await store.messages(sessionId)).map((m) => [m.content, (m as { cutOff?: boolean }).cutOff])).toEqual([
      ['explain', undefined],
      ['The whole answer.', undefined],
    ]);
    expect(events.at(-1)).toEqual({ type: 'turn-end', end: 'final', problem: null });
  });

  it('a reply cut off before any text gets a line of its own carrying the mark', async () => {
    const { controller, store } = setup([{ toolCalls: [{ name: 'skills_list', arguments: '{}' }] }, { finish: 'cut-off' }]);
    await controller.send('list them');
    const stored = await store.messages(controller.sessionId!);
    expect(stored.map((m) => [m.role, (m as { cutOff?: boolean }).cutOff])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
      ['tool', undefined],
      ['assistant', true],
    ]);
  });

  it('regenerate replaces the last reply; edit-and-resend rewrites a message and drops what followed', async () => {
    const { controller, store, fake } = setup([{ text: 'One.' }, { text: 'Two.' }, { text: 'Uno.' }, { text: 'Dos.' }]);
    await controller.send('first');
    await controller.send('second');
    expect(await controller.regenerate()).toBe(true);
    const sessionId = controller.sessionId!;
    expect((await store.messages(sessionId)).map((m) => m.content)).toEqual(['first', 'One.', 'second', 'Uno.']);
    // The regenerated call saw the history up to the last user message only.
    expect(fake.requests[2]!.messages.slice(1).map((m) => m.content)).toEqual(['first', 'One.', 'second']);

    const firstUser = controller.lines[0]!;
    expect(await controller.editAndResend(firstUser.id, 'first, edited')).toBe(true);
    const after = await store.messages(sessionId);
    expect(after.map((m) => [m.seq, m.content])).toEqual([
      [0, 'first, edited'],
      [1, 'Dos.'],
    ]);
    expect(controller.lines.map((l) => l.content)).toEqual(['first, edited', 'Dos.']);
    // Only user messages can be edited.
    expect(await controller.editAndResend(controller.lines[1]!.id, 'nope')).toBe(false);
  });

  it('/<skill> loads the skill into the turn and counts a use', async () => {
    const s = setup([{ text: 'Following the skill.' }]);
    await s.t.manage({ action: 'create', name: 'brew-tea', content: skillContent('brew-tea', 'Use when brewing tea.', '# Tea\n\nSteep 3 minutes.\n') });
    const before = (await s.t.engine.usage.get('brew-tea')).use_count ?? 0;
    expect(await s.controller.invokeSkill('brew-tea', 'make me a cup')).toBe(true);
    const sent = s.fake.requests[0]!.messages.at(-1)!.content;
    expect(sent).toContain('Steep 3 minutes.');
    expect(skillInvocationOf(sent)).toEqual({ skill: 'brew-tea', request: 'make me a cup' });
    expect((await s.store.get(s.controller.sessionId!))!.title).toBe('make me a cup');
    await expect.poll(async () => (await s.t.engine.usage.get('brew-tea')).use_count).toBe(before + 1);
    expect(await s.controller.invokeSkill('no-such-skill', 'x')).toBe(false);
  });

  it('continues a chat stored with repeated tool-call ids: the model gets unique ids, each result paired with its call', async () => {
    const s = setup([{ toolCalls: [{ id: 'call_1', name: 'skills_list', arguments: '{}' }] }, { text: 'Listed again.' }]);
    const session = await s.store.create({ title: 'old', snapshot: 'SYS' });
    await s.store.appendMany(session.id, [
      { role: 'user', content: 'list' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'skills_list', arguments: '{}' }, { id: 'call_1', name: 'skills_list', arguments: '{}' }] },
      { role: 'tool', content: '{"success":true,"n":1}', toolCallId: 'call_1', name: 'skills_list' },
      { role: 'tool', content: '{"success":true,"n":2}', toolCallId: 'call_1', name: 'skills_list' },
      { role: 'assistant', content: 'Listed.' },
    ]);
    const controller = await ChatController.open(s.deps, session.id);
    await controller.send('again');
    for (const request of s.fake.requests) {
      const calls = request.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id));
      expect(new Set(calls).size).toBe(calls.length);
      const results = request.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
      expect([...results].sort()).toEqual([...calls].sort());
    }
    const second = s.fake.requests[1]!.messages;
    expect(second.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content])).toEqual([
      ['call_1', '{"success":true,"n":1}'],
      ['call_1_2', '{"success":true,"n":2}'],
      ['call_1_3', expect.stringContaining('"success":true')],
    ]);
  });

  it('says from which line the lines changed, never changes a line object, and stores a burst in few writes', async () => {
    const calls = Array.from({ length: 30 }, () => ({ name: 'skills_list', arguments: '{}' }));
    const s = setup([{ toolCalls: calls }, { text: 'Done.' }]);
    const batches: number[] = [];
    const appendMany = s.store.appendMany.bind(s.store);
    s.store.appendMany = (sessionId, messages) => {
      batches.push(messages.length);
      return appendMany(sessionId, messages);
    };
    // What a listener keeping its own copy sees at each event: the list, and each line's content then.
    const seen: { from: number; lines: ChatLine[]; json: string[] }[] = [];
    s.controller.subscribe((event) => {
      if (event.type !== 'lines') return;
      const lines = s.controller.lines.slice();
      seen.push({ from: event.from, lines, json: lines.map((line) => JSON.stringify(line)) });
    });
    await s.controller.send('storm');
    expect(seen.length).toBeGreaterThan(32);
    for (let i = 1; i < seen.length; i++) {
      const [before, after] = [seen[i - 1]!, seen[i]!];
      for (let at = 0; at < Math.min(after.from, before.lines.length); at++) expect(after.lines[at]).toBe(before.lines[at]);
    }
    // No line object was changed after it was shown: each still holds what it held then.
    for (const { lines, json } of seen) lines.forEach((line, at) => expect(JSON.stringify(line)).toBe(json[at]));
    const last = seen.at(-1)!.lines;
    expect(last.every((line) => !line.id.startsWith('local:'))).toBe(true);
    const stored = await s.store.messages(s.controller.sessionId!);
    expect(stored.map((m) => [m.id, m.seq])).toEqual(last.map((line) => [line.id, line.seq]));
    // 32 messages after the user's (1 call reply, 30 results, the answer) in fewer writes.
    expect(batches.reduce((sum, n) => sum + n, 0)).toBe(32);
    expect(batches.length).toBeLessThan(32);
  });

  it('never sends a tool call without a result (a stop between calls and results)', () => {
    const history = toModelHistory([
      { id: 'a', seq: 0, role: 'user', content: 'hi' },
      { id: 'b', seq: 1, role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'skills_list', arguments: '{}' }] },
      { id: 'x', seq: 2, role: 'assistant', content: '', stopped: true, transient: true },
    ]);
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(history[2]).toMatchObject({ toolCallId: 'c1', name: 'skills_list' });
  });

  it('calls of a cut-off reply get a result saying it was cut off', () => {
    const history = toModelHistory([
      { id: 'a', seq: 0, role: 'user', content: 'hi' },
      { id: 'b', seq: 1, role: 'assistant', content: 'let me', toolCalls: [{ id: 'c1', name: 'skills_list', arguments: '{}' }], cutOff: true },
    ]);
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.parse(history[2]!.content)).toMatchObject({ success: false, error: expect.stringMatching(/cut off/) });
  });

  it('titles come from the first line, cut at a word', () => {
    expect(titleFrom('  short one \nsecond line')).toBe('short one');
    const long = titleFrom('a '.repeat(10) + 'really long question about the way the index ranks skills by relevance');
    expect(long.length).toBeLessThanOrEqual(61);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('chat lines and stored messages', () => {
  it('stores what the model said, drops what only the chat needs, and reads it back', () => {
    const line = lineFromModel(
      { role: 'assistant', content: 'checking', toolCalls: [{ id: 'c1', name: 'memory', arguments: '{}', parseError: 'bad' }] },
      'local:1',
      4,
    );
    expect(line).toEqual({ id: 'local:1', seq: 4, role: 'assistant', content: 'checking', toolCalls: [{ id: 'c1', name: 'memory', arguments: '{}' }] });
    const stopped = { ...line, stopped: true, transient: true };
    expect(messageToStore(stopped)).toEqual({ role: 'assistant', content: 'checking', toolCalls: [{ id: 'c1', name: 'memory', arguments: '{}' }] });
    const stored = { ...messageToStore(line), id: 'm9', sessionId: 's1', seq: 4, createdAt: 1, stopped: true };
    expect(lineFromStored(stored)).toEqual({ ...line, id: 'm9', stopped: true });
  });

  it('keeps a tool result tied to its call', () => {
    const line = lineFromModel({ role: 'tool', content: '{"success":true}', toolCallId: 'c1', name: 'memory' }, 'local:2', 5);
    expect(messageToStore(line)).toEqual({ role: 'tool', content: '{"success":true}', toolCallId: 'c1', name: 'memory' });
    expect(lineFromModel({ role: 'assistant', content: 'hi', toolCalls: [] }, 'local:3', 6)).not.toHaveProperty('toolCalls');
  });
});
