import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppServices } from '../../src/app/appServices';
import { createWriteContext } from '../../src/tools/writeContext';
import { memoryAppServices, memoryParts } from './helpers/memoryAppServices';
import { skillContent } from './helpers/skillTestEngine';

const opened: AppServices[] = [];
afterEach(() => {
  for (const app of opened.splice(0)) app.changes.close();
});

async function services(context: 'tab' | 'worker' = 'worker', parts = memoryParts()) {
  const built = await memoryAppServices(context, parts);
  opened.push(built.app);
  return built;
}

describe('createAppServices', () => {
  it('builds one tool registry, and the engines share the storage’s one ledger, usage and pending store', async () => {
    const { app, storage } = await services();
    const [first, second] = await Promise.all([app.tools(), app.tools()]);
    expect(first).toBe(second);
    expect(first.names().sort()).toEqual(['memory', 'skill_manage', 'skill_view', 'skills_list']);
    const skills = await app.skills();
    expect(skills.engine.ledger).toBe(storage.stores.ledger);
    expect(skills.engine.usage).toBe(storage.stores.usage);
    expect(skills.engine.pending).toBe(storage.stores.pending);
  });

  it('a foreground skill write that is staged publishes pending-changed, like a memory write', async () => {
    const { app, storage } = await services();
    await app.settings.update('skills', { writeApproval: 'all' });
    await app.settings.update('memory', { writeApproval: 'all' });
    const registry = await app.tools();
    const skill = await registry.dispatchOutcome('skill_manage', { action: 'create', name: 'tea', content: skillContent('tea') }, createWriteContext('foreground'));
    expect(skill).toMatchObject({ success: true, staged: true });
    await vi.waitFor(() => expect(storage.published.filter((c) => c.type === 'pending-changed')).toHaveLength(1), { timeout: 2000 });
    const memory = await registry.dispatchOutcome('memory', { action: 'add', target: 'user', content: 'Likes green tea.' }, createWriteContext('foreground'));
    expect(memory).toMatchObject({ success: true, staged: true });
    await vi.waitFor(() => expect(storage.published.filter((c) => c.type === 'pending-changed')).toHaveLength(2), { timeout: 2000 });
  });

  it('approve replays through the one registry and reject discards; both publish pending-changed', async () => {
    const { app, storage } = await services();
    await app.settings.update('skills', { writeApproval: 'all' });
    const registry = await app.tools();
    await registry.dispatchOutcome('skill_manage', { action: 'create', name: 'tea', content: skillContent('tea') }, createWriteContext('foreground'));
    await registry.dispatchOutcome('skill_manage', { action: 'create', name: 'coffee', content: skillContent('coffee') }, createWriteContext('foreground'));
    const [newest, oldest] = await app.pending.list();
    expect(newest!.created_at >= oldest!.created_at).toBe(true);
    expect(await app.pending.approve(newest!.id)).toMatchObject({ success: true });
    await app.pending.reject(oldest!.id);
    expect(await app.pending.list()).toEqual([]);
    const approvedName = String(newest!.payload.name);
    expect(await storage.files.exists(`skills/${approvedName}/SKILL.md`)).toBe(true);
    await vi.waitFor(() => expect(storage.published.filter((c) => c.type === 'pending-changed')).toHaveLength(4), { timeout: 2000 });
  });

  it('the worker context has no sessions or chat', async () => {
    const { app } = await services('worker');
    await expect(app.sessions()).rejects.toThrow(/only in the tab/);
    await expect(app.chat()).rejects.toThrow(/only in the tab/);
  });

  it('a settings change in one context reaches the other context’s engines', async () => {
    const parts = memoryParts();
    const { app: tab } = await services('worker', parts);
    const { app: worker } = await services('worker', parts);
    await tab.settings.update('memory', { writeApproval: 'review' });
    await vi.waitFor(() => expect(worker.settings.get('memory').writeApproval).toBe('review'), { timeout: 2000 });
  });
});
