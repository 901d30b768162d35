/**
 * Chat export: the versioned JSON shape, the Markdown a person reads (roles, tool calls
 * summarised with their raw JSON folded, reasoning kept, fences that content cannot close),
 * and safe file names. Sessions come from the in-memory store, as the app's would.
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionBackend } from '../../src/sessions/memorySessionBackend';
import { SessionStore } from '../../src/sessions/sessionStore';
import {
  CHAT_EXPORT_FORMAT,
  CHAT_EXPORT_VERSION,
  chatExportFileName,
  chatToExport,
  chatToJson,
  chatToMarkdown,
  summariseToolCall,
  summariseToolResult,
} from '../../src/sessions/chatExport';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

async function sampleChat() {
  let clock = Date.UTC(2026, 10, 30, 9, 0, 0);
  let ids = 0;
  const store = new SessionStore(new MemorySessionBackend(), { now: () => (clock += 1000), newId: () => `id-${++ids}` });
  const session = await store.create({ title: 'Trip planning', snapshot: 'SECRET MEMORY' });
  await store.append(session.id, { role: 'user', content: 'Which skill covers packing?' });
  await store.append(session.id, {
    role: 'assistant',
    content: 'Let me look.',
    toolCalls: [{ id: 'call-1', name: 'skill_view', arguments: '{"name":"packing-list","path":"SKILL.md"}' }],
  });
  await store.append(session.id, { role: 'tool', toolCallId: 'call-1', name: 'skill_view', content: '{"success":true,"content":"# Packing"}' });
  const last = await store.append(session.id, { role: 'assistant', content: 'Use this:\n```\nsocks\n```' });
  await store.updateMessage(last.id, { cutOff: true, reasoning: 'The user wants packing advice.' });
  const stored = (await store.get(session.id))!;
  return { session: stored, messages: await store.messages(session.id) };
}

describe('chatToExport / chatToJson', () => {
  it('gives the versioned shape with every message in order and no system prompt', async () => {
    const { session, messages } = await sampleChat();
    const data = chatToExport(session, [...messages].reverse(), { now: NOW, model: 'qwen-test' });
    expect(data).toMatchObject({
      format: CHAT_EXPORT_FORMAT,
      version: CHAT_EXPORT_VERSION,
      exportedAt: '2026-12-01T12:00:00.000Z',
      session: { id: session.id, title: 'Trip planning', messageCount: 4, model: 'qwen-test' },
    });
    expect(data.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(data.messages[1]!.toolCalls).toEqual([{ id: 'call-1', name: 'skill_view', arguments: '{"name":"packing-list","path":"SKILL.md"}' }]);
    expect(data.messages[2]).toMatchObject({ toolCallId: 'call-1', name: 'skill_view' });
    expect(data.messages[3]).toMatchObject({ cutOff: true, reasoning: 'The user wants packing advice.' });
    expect(data.messages[3]!.updatedAt).toMatch(/^2026-11-30T/);
    expect(JSON.stringify(data)).not.toContain('SECRET MEMORY');
  });

  it('leaves the model out when it is not known, and the JSON text parses back to the same shape', async () => {
    const { session, messages } = await sampleChat();
    const text = chatToJson(session, messages, { now: NOW });
    const parsed = JSON.parse(text) as ReturnType<typeof chatToExport>;
    expect(parsed).toEqual(chatToExport(session, messages, { now: NOW }));
    expect('model' in parsed.session).toBe(false);
  });

  it('names the model the chat chose (Chat model) when the caller names none', async () => {
    const { session, messages } = await sampleChat();
    const withChoice = { ...session, chatModel: { providerId: 'local', model: 'llama-chosen' } };
    expect(chatToExport(withChoice, messages, { now: NOW }).session.model).toBe('llama-chosen');
    expect(chatToMarkdown(withChoice, messages, { now: NOW })).toContain('- Model: llama-chosen');
  });
});

describe('chatToMarkdown', () => {
  it('has the title, dates, model and each message under its role', async () => {
    const { session, messages } = await sampleChat();
    const markdown = chatToMarkdown(session, messages, { now: NOW, model: 'qwen-test' });
    expect(markdown.startsWith('# Trip planning\n')).toBe(true);
    expect(markdown).toContain('- Model: qwen-test');
    expect(markdown).toContain('- Exported from Knack: 2026-12-01T12:00:00.000Z');
    expect(markdown).toContain('## You\n\nWhich skill covers packing?');
    expect(markdown).toContain('## Tool result: `skill_view`\n\n**Succeeded**');
    expect(markdown).toContain('**Tool call:** `skill_view` with name: “packing-list”, path: “SKILL.md”');
    expect(markdown).toContain('<summary>Raw call (JSON)</summary>');
    expect(markdown).toContain('"name": "packing-list"');
    expect(markdown).toContain('<summary>Reasoning</summary>');
    expect(markdown).toContain('*(cut off)*');
    expect(markdown).not.toContain('SECRET MEMORY');
  });

  it('fences reasoning longer than any backtick run inside it', async () => {
    const { session, messages } = await sampleChat();
    const tricky = messages.map((m) => (m.seq === 3 ? { ...m, reasoning: 'a ```` b' } : m));
    const markdown = chatToMarkdown(session, tricky, { now: NOW });
    expect(markdown).toContain('`````text\na ```` b\n`````');
  });

  it('shows a tool result that is not JSON as plain fenced text', async () => {
    const { session, messages } = await sampleChat();
    const plain = messages.map((m) => (m.role === 'tool' ? { ...m, content: 'not json' } : m));
    expect(chatToMarkdown(session, plain, { now: NOW })).toContain('```text\nnot json\n```');
  });
});

describe('summaries', () => {
  it('summarises calls readably, shortening long values and counting the rest', () => {
    expect(summariseToolCall({ name: 'memory', arguments: '{}' })).toBe('`memory` with no arguments');
    expect(summariseToolCall({ name: 'memory', arguments: '{oops' })).toBe('`memory` with arguments that are not valid JSON');
    const long = summariseToolCall({ name: 't', arguments: JSON.stringify({ a: 'x'.repeat(100), b: 1, c: [1], d: null, e: 2, f: 3 }) });
    expect(long).toContain(`a: “${'x'.repeat(57)}…”`);
    expect(long).toContain('b: “1”, c: “[1]”, d: “null”, and 2 more');
  });

  it('summarises results in the {success} shape and nothing else', () => {
    expect(summariseToolResult('{"success":false,"error":"No skill named x; list skills first."}')).toBe('Failed: No skill named x; list skills first.');
    expect(summariseToolResult('{"success":false}')).toBe('Failed');
    expect(summariseToolResult('{"ok":true}')).toBeNull();
    expect(summariseToolResult('plain')).toBeNull();
  });
});

describe('chatExportFileName', () => {
  it('keeps letters and digits, turns the rest into single dashes, and never comes out empty', () => {
    expect(chatExportFileName('Trip planning: Paris/Rome?', 'md')).toBe('Trip-planning-Paris-Rome.md');
    expect(chatExportFileName('../../etc/passwd', 'json')).toBe('etc-passwd.json');
    expect(chatExportFileName('Ünïcödé 東京', 'md')).toBe('Ünïcödé-東京.md');
    expect(chatExportFileName('???', 'md')).toBe('chat.md');
    expect(chatExportFileName('CON', 'json')).toBe('CON-chat.json');
    expect(chatExportFileName('a'.repeat(200), 'md')).toBe(`${'a'.repeat(80)}.md`);
  });
});
