// The sync core (src/sync/syncEngine.ts) on two devices (two skill engines on the in-memory
// stores) through the GitHub transport to the one GitHub stand-in (a real git repository behind
// GitHub's rules): edits to different skills merge, the same lines conflict and both versions
// stay, a push race loses nothing, an edit made while GitHub could not be reached goes out later.
import { describe, expect, it } from 'vitest';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { SyncStateStore } from '../../src/sync/syncState';
import { SyncEngine, type SyncOutcome } from '../../src/sync/syncEngine';
import { SkillEngineLibrary } from '../../src/sync/skillLibrary';
import { GitHubTransport } from '../../src/sync/githubTransport';
import { SyncPlaceError } from '../../src/sync/transport';
import { fetchThroughStandIn, type GitHubStandIn } from '../fixtures/githubStandIn';
import { githubStandInPerFile } from './helpers/githubStandInPerFile';

let standIn: GitHubStandIn;
githubStandInPerFile((started) => (standIn = started));

function device(options: { offline?: () => boolean } = {}) {
  const t = createTestEngine();
  const state = new SyncStateStore(new MemoryRecordStore());
  const local = new SkillEngineLibrary(t.engine);
  const through = fetchThroughStandIn(standIn);
  let requests = 0;
  const fetcher: typeof fetch = (input, init) => {
    if (options.offline?.()) return Promise.reject(new TypeError('Failed to fetch'));
    requests += 1;
    return through(input, init);
  };
  return {
    t,
    state,
    local,
    get requests() {
      return requests;
    },
    // A fresh transport per sync, as the app's sync service makes one.
    sync: (changed: ReadonlySet<string> | 'all' = 'all'): Promise<SyncOutcome> =>
      new SyncEngine({
        transport: new GitHubTransport({ owner: standIn.owner, repo: standIn.repo, branch: 'main', folder: 'skills', token: standIn.token }, { fetch: fetcher }),
        local,
        state,
        placeKey: 'github test',
        changed,
      }).run(),
    text: async (path: string) => {
      const bytes = await t.files.read(`skills/${path}`);
      return bytes ? new TextDecoder().decode(bytes) : null;
    },
  };
}

const body = (lines: string[]) => `# Steps\n\n${lines.join('\n')}\n`;
const tenLines = Array.from({ length: 10 }, (_, i) => `Step ${i + 1}: do thing ${i + 1}.`);
const remoteText = async (path: string) => (await standIn.readFile('main', `skills/${path}`))?.toString('utf8');

describe('two devices through GitHub', () => {
  it('start an empty repository, bring the library across byte for byte, and cost one request when nothing changed', async () => {
    const phone = device();
    await phone.t.manage({ action: 'create', name: 'pdf', content: skillContent('pdf') });
    await phone.t.manage({ action: 'write_file', name: 'pdf', file_path: 'scripts/run.sh', file_content: '#!/bin/sh\necho pdf\n' });
    expect(await phone.sync()).toMatchObject({ status: 'synced', sent: ['pdf'] });
    expect(await remoteText('pdf/SKILL.md')).toBe(skillContent('pdf'));

    const laptop = device();
    expect(await laptop.sync()).toMatchObject({ status: 'synced', received: ['pdf'] });
    expect(await laptop.text('pdf/SKILL.md')).toBe(skillContent('pdf'));
    // GitHub cannot hold the mode; the .knack record carries it across.
    expect((await laptop.local.read('pdf'))?.files.get('scripts/run.sh')?.mode).toBe(0o755);
    expect((await standIn.listFiles('main')).some((path) => path.startsWith('skills/.knack/'))).toBe(true);

    const before = laptop.requests;
    expect(await laptop.sync(new Set())).toMatchObject({ status: 'synced', sent: [], received: [] });
    expect(laptop.requests - before).toBe(1);
  });

  it('merge edits to different skills, and keep both versions of the same lines', async () => {
    const a = device();
    const b = device();
    await a.t.manage({ action: 'create', name: 'tea', content: skillContent('tea', 'Use for tea.', body(tenLines)) });
    await a.t.manage({ action: 'create', name: 'coffee', content: skillContent('coffee') });
    await a.sync();
    await b.sync();

    await a.t.manage({ action: 'patch', name: 'coffee', old_string: 'Step 1: Do the thing.', new_string: 'Step 1: Grind.' });
    await b.t.manage({ action: 'patch', name: 'tea', old_string: 'Step 10: do thing 10.', new_string: 'Step 10: pour.' });
    await a.sync(new Set(['coffee']));
    expect((await b.sync(new Set(['tea']))).conflicts).toEqual([]);
    await a.sync(new Set());
    for (const d of [a, b]) {
      expect(await d.text('tea/SKILL.md')).toContain('Step 10: pour.');
      expect(await d.text('coffee/SKILL.md')).toContain('Step 1: Grind.');
    }

    await a.t.manage({ action: 'patch', name: 'tea', old_string: 'Step 5: do thing 5.', new_string: 'Step 5: from a.' });
    await b.t.manage({ action: 'patch', name: 'tea', old_string: 'Step 5: do thing 5.', new_string: 'Step 5: from b.' });
    await a.sync(new Set(['tea']));
    expect((await b.sync(new Set(['tea']))).conflicts).toEqual(['tea']);
    expect(await b.text('tea/SKILL.md')).toContain('Step 5: from b.');
    expect(await remoteText('tea/SKILL.md')).toContain('Step 5: from a.');
    expect(new TextDecoder().decode((await b.state.conflict('tea'))!.theirs.get('SKILL.md')!.bytes)).toContain('Step 5: from a.');
  });

  it('lose nothing when both push at once, round after round', async () => {
    const a = device();
    const b = device();
    await a.sync();
    for (let round = 0; round < 5; round += 1) {
      await a.t.manage({ action: 'create', name: `a-${round}`, content: skillContent(`a-${round}`) });
      await b.t.manage({ action: 'create', name: `b-${round}`, content: skillContent(`b-${round}`) });
      const outcomes = await Promise.all([a.sync(new Set([`a-${round}`])), b.sync(new Set([`b-${round}`]))]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['synced', 'synced']);
    }
    await a.sync(new Set());
    await b.sync(new Set());
    const names = (await standIn.listFiles('main')).filter((path) => path.endsWith('/SKILL.md') && !path.includes('.knack')).sort();
    expect(names).toEqual([0, 1, 2, 3, 4].flatMap((round) => [`skills/a-${round}/SKILL.md`, `skills/b-${round}/SKILL.md`]).sort());
    for (let round = 0; round < 5; round += 1) {
      expect(await a.text(`b-${round}/SKILL.md`)).toBe(skillContent(`b-${round}`));
      expect(await b.text(`a-${round}/SKILL.md`)).toBe(skillContent(`a-${round}`));
    }
  });

  it('send an edit made while GitHub could not be reached once it can', async () => {
    let offline = false;
    const a = device({ offline: () => offline });
    const b = device();
    await a.t.manage({ action: 'create', name: 'tea', content: skillContent('tea') });
    await a.sync();
    await b.sync();
    offline = true;
    await a.t.manage({ action: 'patch', name: 'tea', old_string: 'Step 1: Do the thing.', new_string: 'Step 1: written offline.' });
    await expect(a.sync(new Set(['tea']))).rejects.toBeInstanceOf(SyncPlaceError);
    offline = false;
    expect(await a.sync(new Set(['tea']))).toMatchObject({ status: 'synced', sent: ['tea'] });
    await b.sync(new Set());
    expect(await b.text('tea/SKILL.md')).toContain('Step 1: written offline.');
  });
});
