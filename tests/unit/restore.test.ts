import { describe, expect, it } from 'vitest';
import { createBackup } from '../../src/app/backup';
import { openBackup } from '../../src/app/backupRead';
import { applyRestore } from '../../src/app/restore';
import { planRestore } from '../../src/app/restorePlan';
import { Journal, SimulatedCrash } from '../../src/storage/journal';
import { FixedLiveness } from '../../src/storage/liveness';
import { CancelledError } from '../../src/storage/progress';
import type { RecordStore } from '../../src/storage/recordStore';
import { applyStagedRestore } from '../../src/app/restoreCommit';
import { makeProfile, populate, snapshotProfile, type TestProfile } from './helpers/backupProfile';

async function backupOfPopulated(): Promise<Uint8Array> {
  const source = makeProfile();
  await populate(source);
  return (await createBackup(source)).bytes;
}

/** A profile that already has things: one skill the backup has too (changed), one of its own, a changed chat. */
async function existingProfile(profile: TestProfile = makeProfile()): Promise<TestProfile> {
  await profile.raw.write('skills/git/commit-style/SKILL.md', '---\nname: commit-style\ndescription: Mine.\n---\nMy own version.\n');
  await profile.raw.write('skills/git/commit-style/extra.md', 'only here');
  await profile.raw.write('skills/mine/SKILL.md', '---\nname: mine\ndescription: Mine only.\n---\nx\n');
  await profile.raw.write('memories/MEMORY.md', 'Project uses pnpm.\n§\nLocal note.');
  await profile.stores.settings.put('app', { provider: 'openai-compatible', baseUrl: 'https://local.test/v1', apiKey: 'sk-local', model: 'local' });
  await profile.stores.usage.put('commit-style', { skill: 'commit-style', uses: 99, state: 'staged' });
  await profile.stores.sessions.put('s1', { id: 's1', title: 'Changed here', createdAt: 1, updatedAt: 50, messageCount: 1 });
  await profile.stores.messages.put('mx', { id: 'mx', sessionId: 's1', seq: 0, role: 'user', content: 'local message' });
  return profile;
}

describe('planRestore', () => {
  it('says what is new, the same, and colliding, per kind', async () => {
    const bytes = await backupOfPopulated();
    const target = await existingProfile();
    const { preview } = await planRestore(await openBackup(bytes), target);
    expect(preview.targetEmpty).toBe(false);
    expect(preview.skills.map((s) => [s.dir, s.status])).toEqual([
      ['skills/git/commit-style', 'collides'],
      ['skills/notes', 'new'],
    ]);
    expect(preview.sessions).toMatchObject({ new: 1, collides: 1, collidingIds: ['s1'] });
    expect(preview.memory).toEqual([
      { path: 'memories/MEMORY.md', status: 'collides' },
      { path: 'memories/USER.md', status: 'new' },
    ]);
    expect(preview.records.usage).toEqual({ new: 1, same: 0, collides: 1 });
    expect(preview.otherFiles).toEqual({ new: 1, same: 0, collides: 0 });
  });

  it('finds everything the same when the backup is restored over its own profile', async () => {
    const source = makeProfile();
    await populate(source);
    const { preview } = await planRestore(await openBackup((await createBackup(source)).bytes), source);
    expect(preview.skills.every((s) => s.status === 'same')).toBe(true);
    expect(preview.records.settings).toEqual({ new: 0, same: 2, collides: 0 });
  });
});

describe('applyRestore choices', () => {
  it('skip keeps every colliding thing of the profile and adds what is new', async () => {
    const target = await existingProfile();
    const plan = await planRestore(await openBackup(await backupOfPopulated()), target);
    await applyRestore(plan, { collisions: 'skip' }, target.deps);
    expect(await target.raw.readText('skills/git/commit-style/SKILL.md')).toContain('My own version');
    expect(await target.raw.readText('skills/notes/SKILL.md')).toContain('Be brief');
    expect(await target.stores.usage.get('commit-style')).toMatchObject({ uses: 99 });
    expect(await target.stores.sessions.get('s1')).toMatchObject({ title: 'Changed here' });
    expect(await target.stores.sessions.get('s2')).toMatchObject({ title: 'Second' });
    expect(await target.stores.settings.get('app')).toMatchObject({ apiKey: 'sk-local', baseUrl: 'https://local.test/v1' });
    expect(await target.stores.ledger.get('0001')).toBeUndefined(); // history of a skipped skill stays out
  });

  it('replace makes colliding skills, chats and settings the backup’s, keeping this profile’s API key', async () => {
    const target = await existingProfile();
    const plan = await planRestore(await openBackup(await backupOfPopulated()), target);
    await applyRestore(plan, { collisions: 'replace' }, target.deps);
    expect(await target.raw.readText('skills/git/commit-style/SKILL.md')).toContain('Use the imperative');
    expect(await target.raw.exists('skills/git/commit-style/extra.md')).toBe(false);
    expect(await target.raw.exists('skills/mine/SKILL.md')).toBe(true);
    expect(await target.stores.usage.get('commit-style')).toMatchObject({ uses: 3 });
    expect(await target.stores.messages.get('mx')).toBeUndefined();
    expect(await target.stores.messages.get('m1')).toMatchObject({ content: 'hello' });
    expect(await target.stores.settings.get('app')).toMatchObject({ apiKey: 'sk-local', baseUrl: 'https://api.example.test/v1' });
    expect(await target.raw.readText('memories/MEMORY.md')).toBe('The user likes tea.\n§\nProject uses pnpm.');
  });

  it('keep both copies a skill beside the original, a chat under a new id, and merges memory entries', async () => {
    const target = await existingProfile();
    const plan = await planRestore(await openBackup(await backupOfPopulated()), target);
    let n = 0;
    await applyRestore(plan, { collisions: 'keep-both' }, target.deps, { newId: () => `new-${++n}` });
    expect(await target.raw.readText('skills/git/commit-style/SKILL.md')).toContain('My own version');
    expect(await target.raw.readText('skills/git/commit-style-2/SKILL.md')).toContain('Use the imperative');
    expect(await target.raw.read('skills/git/commit-style-2/assets/logo.bin')).toEqual(new Uint8Array([0, 1, 2, 255, 254, 128, 0, 7]));
    expect(await target.stores.usage.get('commit-style-2')).toMatchObject({ uses: 3 });
    expect(await target.stores.sessions.get('s1')).toMatchObject({ title: 'Changed here' });
    expect(await target.stores.sessions.get('new-1')).toMatchObject({ id: 'new-1', title: 'First' });
    expect((await target.stores.messages.getAll()).filter((m) => (m as { sessionId: string }).sessionId === 'new-1')).toHaveLength(2);
    expect(await target.raw.readText('memories/MEMORY.md')).toBe('Project uses pnpm.\n§\nLocal note.\n§\nThe user likes tea.');
  });

  it('keep both gives the copied skill its own history and verdicts, and keeps both of colliding runs and pending writes', async () => {
    const source = makeProfile();
    await populate(source);
    const path = 'skills/git/commit-style/SKILL.md';
    await source.stores.ledger.put('0002', { id: '0002', skill: 'commit-style', actor: 'user', action: 'rollback', rollbackOf: '0001', at: 2, before: [{ path, hash: 'abc' }], after: [{ path, hash: 'abc' }] });
    await source.stores.usage.put('commit-style', { skill: 'commit-style', uses: 3, verdict_id: 'v1' });
    await source.stores.pending.put('p1', { id: 'p1', gist: 'from the backup' });
    const target = await existingProfile();
    await target.stores.ledger.put('0001', { id: '0001', skill: 'commit-style', actor: 'user', action: 'create', at: 1, before: [], after: [], evidence: { here: true } });
    await target.stores.activity.put('run1', { id: 'run1', startedAt: 6 });
    await target.stores.pending.put('p1', { id: 'p1', gist: 'here' });
    const plan = await planRestore(await openBackup((await createBackup(source)).bytes), target);
    let n = 0;
    await applyRestore(plan, { collisions: 'keep-both' }, target.deps, { newId: () => `new-${++n}` });

    const ledger = (await target.stores.ledger.getAll()) as { id: string; skill: string; rollbackOf?: string; before: { path: string }[] }[];
    expect(ledger.find((entry) => entry.id === '0001')).toMatchObject({ skill: 'commit-style', evidence: { here: true } });
    const copied = ledger.filter((entry) => entry.skill === 'commit-style-2');
    expect(copied).toHaveLength(2);
    const created = copied.find((entry) => entry.id !== '0001' && !entry.rollbackOf)!;
    const rollback = copied.find((entry) => entry.rollbackOf)!;
    expect(rollback.rollbackOf).toBe(created.id);
    expect(rollback.before).toEqual([{ path: 'skills/git/commit-style-2/SKILL.md', hash: 'abc' }]);
    const verdicts = (await target.stores.verdicts.getAll()) as { id: string; skill: string }[];
    const copyVerdict = verdicts.find((verdict) => verdict.skill === 'commit-style-2')!;
    expect(copyVerdict.id).not.toBe('v1');
    expect(await target.stores.usage.get('commit-style-2')).toMatchObject({ name: 'commit-style-2', verdict_id: copyVerdict.id });
    expect(await target.stores.usage.get('commit-style')).toMatchObject({ uses: 99 });
    const runs = (await target.stores.activity.getAll()) as { id: string; startedAt: number }[];
    expect(runs.map((run) => run.startedAt).sort()).toEqual([5, 6]);
    const pending = (await target.stores.pending.getAll()) as { gist: string }[];
    expect(pending.map((write) => write.gist).sort()).toEqual(['from the backup', 'here']);
    expect(await target.stores.settings.get('app')).toMatchObject({ apiKey: 'sk-local', baseUrl: 'https://local.test/v1' });
  });

  it('a per-skill choice wins over the choice for all', async () => {
    const target = await existingProfile();
    const plan = await planRestore(await openBackup(await backupOfPopulated()), target);
    await applyRestore(plan, { collisions: 'skip', skills: { 'skills/git/commit-style': 'replace' } }, target.deps);
    expect(await target.raw.readText('skills/git/commit-style/SKILL.md')).toContain('Use the imperative');
    expect(await target.stores.sessions.get('s1')).toMatchObject({ title: 'Changed here' });
    expect(await target.stores.ledger.get('0001')).toBeDefined();
  });
});

describe('a failed restore changes nothing', () => {
  async function prepared() {
    const target = await existingProfile();
    const plan = await planRestore(await openBackup(await backupOfPopulated()), target);
    const before = await snapshotProfile(target);
    return { target, plan, before };
  }

  it('when a file cannot be written midway', async () => {
    const { target, plan, before } = await prepared();
    target.failing.failing = (path) => path.includes('skills/notes/SKILL.md');
    await expect(applyRestore(plan, { collisions: 'replace' }, target.deps)).rejects.toThrow(/injected write failure/);
    target.failing.failing = null;
    expect(await snapshotProfile(target)).toEqual(before);
    expect(await target.intents.keys()).toEqual([]);
  });

  it('when the records cannot be written after the files were moved into place', async () => {
    let failPuts = false;
    const wrap = (table: string, store: RecordStore<unknown>): RecordStore<unknown> =>
      table !== 'messages'
        ? store
        : new Proxy(store, {
            get(target, prop, receiver) {
              if (prop === 'putMany' && failPuts) return async () => Promise.reject(new Error('injected quota failure'));
              return Reflect.get(target, prop, receiver) as unknown;
            },
          });
    const target = await existingProfile(makeProfile({ wrapStores: wrap }));
    const plan = await planRestore(await openBackup(await backupOfPopulated()), target);
    const before = await snapshotProfile(target);
    failPuts = true;
    await expect(applyRestore(plan, { collisions: 'replace' }, target.deps)).rejects.toThrow(/injected quota failure/);
    failPuts = false;
    expect(await snapshotProfile(target)).toEqual(before);
  });

  it('when cancelled before the commit', async () => {
    const { target, plan, before } = await prepared();
    const controller = new AbortController();
    controller.abort();
    await expect(applyRestore(plan, { collisions: 'replace' }, target.deps, { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
    expect(await snapshotProfile(target)).toEqual(before);
  });

  it('when the page dies: recovery ends at the old profile or the whole restore, at every step', async () => {
    const probe = await prepared();
    await applyRestore(probe.plan, { collisions: 'replace' }, probe.target.deps);
    const restored = await snapshotProfile(probe.target);
    let outcomes = { old: 0, restored: 0 };
    for (let step = 0; ; step++) {
      const { target, plan, before } = await prepared();
      const crash = applyRestore(plan, { collisions: 'replace' }, target.deps, { failAfterStep: step });
      const finished = await crash.then(
        () => true,
        (err: unknown) => {
          expect(err).toBeInstanceOf(SimulatedCrash);
          return false;
        },
      );
      if (!finished) {
        // The next start: another context settles the dead tab's intent.
        const next = new Journal({
          files: target.files,
          intents: target.intents,
          liveness: new FixedLiveness('tab-b'),
          onCommitted: (intent) => applyStagedRestore(intent, target.files, target.tables),
        });
        await next.recover();
      }
      const after = await snapshotProfile(target);
      const withoutRestoreDir = { ...after, files: Object.fromEntries(Object.entries(after.files).filter(([path]) => !path.startsWith('.knack-restore/'))) };
      if (JSON.stringify(withoutRestoreDir) === JSON.stringify(before)) outcomes = { ...outcomes, old: outcomes.old + 1 };
      else {
        expect(withoutRestoreDir).toEqual(restored);
        outcomes = { ...outcomes, restored: outcomes.restored + 1 };
      }
      if (finished) break;
    }
    expect(outcomes.old).toBeGreaterThan(0);
    expect(outcomes.restored).toBeGreaterThan(0);
  });
});
