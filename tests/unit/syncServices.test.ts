// The tab's sync service on the in-memory stores: Connect sends the library, a skill write is
// queued and sent after the debounce, offline changes wait with "N changes waiting", the status
// words, and Disconnect forgets this device's sync records.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryAppServices } from './helpers/memoryAppServices';
import { MemoryPlace } from './helpers/memoryPlace';
import { skillContent } from './helpers/skillTestEngine';
import { ToolRegistry } from '../../src/tools/toolRegistry';
import { skillToolDefinitions } from '../../src/skills/tools/skillToolDefinitions';
import { SYNC_PLACES, SYNC_DEBOUNCE_MS, type SyncService } from '../../src/app/syncServices';

const originalFolder = SYNC_PLACES.folder;
const originalGithub = SYNC_PLACES.github;
afterEach(() => {
  SYNC_PLACES.folder = originalFolder;
  SYNC_PLACES.github = originalGithub;
  vi.useRealTimers();
});

async function setUp() {
  const place = new MemoryPlace();
  SYNC_PLACES.folder = async () => place.transport('folder');
  const { app } = await memoryAppServices('tab');
  const sync: SyncService = await app.sync();
  const skills = await app.skills();
  const create = async (name: string) => {
    const registry = new ToolRegistry(skillToolDefinitions(skills.engine));
    const result = JSON.parse(await registry.dispatch('skill_manage', { action: 'create', name, content: skillContent(name) }, { origin: 'user', readPaths: new Set() }));
    expect(result.success).toBe(true);
  };
  return { place, app, sync, skills, create };
}

describe('SyncService', () => {
  it('connects, sends after a write (debounced), queues while offline, and forgets on Disconnect', async () => {
    const { place, app, sync, create } = await setUp();
    let online = true;
    (sync as unknown as { deps: { online: () => boolean } }).deps.online = () => online;
    await create('tea');
    await sync.connect({ kind: 'folder', url: 'My skills', branch: 'main', folder: '', token: '' });
    expect(sync.status.phase).toBe('synced');
    expect(sync.status.text).toMatch(/^Synced \d/);
    expect(place.text('tea/SKILL.md')).toBe(skillContent('tea'));
    expect(await sync.skillState('tea')).toBe('synced');

    vi.useFakeTimers();
    await create('coffee');
    expect(sync.status.text).toBe('1 change waiting');
    expect(await sync.skillState('coffee')).toBe('changed here');
    const commits = place.commits;
    await vi.advanceTimersByTimeAsync(SYNC_DEBOUNCE_MS + 10);
    vi.useRealTimers();
    // The debounced sync sent it, without Sync now.
    await vi.waitFor(() => expect(place.text('coffee/SKILL.md')).toBe(skillContent('coffee')));
    expect(place.commits).toBe(commits + 1);
    await vi.waitFor(() => expect(sync.status.phase).toBe('synced'));

    online = false;
    await create('cocoa');
    await sync.syncNow();
    expect(sync.status).toMatchObject({ phase: 'waiting', text: '1 change waiting' });
    expect(place.text('cocoa/SKILL.md')).toBeUndefined();
    online = true;
    await sync.syncNow('online');
    expect(place.text('cocoa/SKILL.md')).toBe(skillContent('cocoa'));
    expect(sync.status.phase).toBe('synced');

    await sync.disconnect();
    expect(app.settings.get('sync').connected).toBe(false);
    expect(await sync.state.bases()).toEqual(new Map());
    expect(sync.status.text).toBe('Not connected');
  });

  it('says what went wrong, and refuses a place this build cannot reach', async () => {
    const { sync } = await setUp();
    delete SYNC_PLACES.github;
    await expect(sync.connect({ kind: 'github', url: 'me/skills', branch: 'main', folder: '', token: '' })).rejects.toThrow(/cannot sync with that place yet/);
    SYNC_PLACES.folder = async () => {
      throw new Error('The folder was moved or deleted.');
    };
    await sync.connect({ kind: 'folder', url: 'My skills', branch: 'main', folder: '', token: '' });
    expect(sync.status).toMatchObject({ phase: 'error', text: 'The folder was moved or deleted.' });
  });
});
