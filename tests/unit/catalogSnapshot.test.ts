import { describe, expect, it } from 'vitest';
import { MemoryFileStore } from '../../src/storage/memoryFileStore';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { SkillCatalog } from '../../src/skills/skillCatalog';
import { RecordCatalogSnapshot, snapshotChunkKey } from '../../src/skills/catalogSnapshot';
import { skillContent } from './helpers/skillTestEngine';

describe('catalogue snapshot (write-through, SPEC §7)', () => {
  it('a new catalogue loads from the snapshot without reading skill files', async () => {
    const files = new MemoryFileStore();
    const records = new MemoryRecordStore<unknown>();
    await files.write('skills/a/SKILL.md', skillContent('a'));
    const first = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    expect(await first.load()).toBe('rescan');
    await first.upsert('skills/b', skillContent('b', 'Second.'));
    await first.remove('skills/a');

    let reads = 0;
    const counting = Object.assign(Object.create(files), { readText: async (p: string) => (reads++, files.readText(p)) });
    const second = new SkillCatalog(counting, new RecordCatalogSnapshot(records));
    expect(await second.load()).toBe('snapshot');
    expect(reads).toBe(0);
    expect(second.entries().map((e) => [e.name, e.description])).toEqual([['b', 'Second.']]);
    expect(second.generation).toBe(first.generation);
  });

  it('a snapshot whose count disagrees with its entries is not trusted', async () => {
    const files = new MemoryFileStore();
    const records = new MemoryRecordStore<unknown>();
    await files.write('skills/a/SKILL.md', skillContent('a'));
    const catalog = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await catalog.load();
    await records.delete(snapshotChunkKey('skills/a'));
    expect(await new SkillCatalog(files, new RecordCatalogSnapshot(records)).load()).toBe('rescan');
  });

  it('keeps many skills across chunks through upserts and removes', async () => {
    const files = new MemoryFileStore();
    const records = new MemoryRecordStore<unknown>();
    const catalog = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await catalog.load();
    for (let i = 0; i < 300; i++) await catalog.upsert(`skills/c${i % 7}/s${i}`, skillContent(`s${i}`, `Skill ${i}.`));
    for (let i = 0; i < 300; i += 3) await catalog.remove(`skills/c${i % 7}/s${i}`);
    await catalog.upsert('skills/c1/s1', skillContent('s1', 'Changed.'));
    // Every stored field away from its default, and a file whose frontmatter cannot be read
    // (unclosed: broken YAML alone is read leniently and has no parse error).
    await catalog.upsert(
      'skills/deep/er/rich',
      '---\nname: Rich Skill\ndescription: All fields.\nplatforms: [macos]\nmetadata:\n  hermes:\n    tags: [a, b]\n    requires_tools: [web_search]\n    fallback_for_toolsets: [memory]\n---\n\nBody\n',
    );
    await catalog.upsert('skills/broken', '---\nname: [unclosed\n');
    expect(catalog.byDirectory('skills/deep/er/rich')?.conditions.requiresTools).toEqual(['web_search']);
    expect(catalog.byDirectory('skills/broken')?.parseError).toBeTruthy();

    const reloaded = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    expect(await reloaded.load()).toBe('snapshot');
    const byDir = (a: { dir: string }, b: { dir: string }) => (a.dir < b.dir ? -1 : 1);
    expect(reloaded.entries().sort(byDir)).toEqual(catalog.entries().sort(byDir));
    expect(reloaded.size).toBe(202);
    expect(reloaded.byDirectory('skills/c1/s1')?.description).toBe('Changed.');
  });

  it('a snapshot written by an older version is not trusted', async () => {
    const files = new MemoryFileStore();
    const records = new MemoryRecordStore<unknown>();
    await files.write('skills/a/SKILL.md', skillContent('a'));
    await records.put('manifest', { kind: 'manifest', version: 1, generation: 3, count: 0 });
    expect(await new SkillCatalog(files, new RecordCatalogSnapshot(records)).load()).toBe('rescan');
    expect(await new SkillCatalog(files, new RecordCatalogSnapshot(records)).load()).toBe('snapshot');
  });
});

describe('change markers (a tab dying between the files and the snapshot)', () => {
  it('a change begun and never reflected in the snapshot makes the next load rescan', async () => {
    const files = new MemoryFileStore();
    const records = new MemoryRecordStore<unknown>();
    await files.write('skills/a/SKILL.md', skillContent('a'));
    const writer = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await writer.load();
    await writer.beginChange(['skills/b']);
    await files.write('skills/b/SKILL.md', skillContent('b')); // …and the tab dies before upsert

    const next = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    expect(await next.load()).toBe('rescan');
    expect(next.entries().map((e) => e.name).sort()).toEqual(['a', 'b']);
    // The rescan replaced the snapshot, markers included: the session after trusts it again.
    expect(await new SkillCatalog(files, new RecordCatalogSnapshot(records)).load()).toBe('snapshot');
  });

  it('upsert and remove clear their markers, and archive paths get none', async () => {
    const files = new MemoryFileStore();
    const records = new MemoryRecordStore<unknown>();
    const catalog = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await catalog.load();
    await catalog.beginChange(['skills/b', 'skills/.archive/old']);
    await files.write('skills/b/SKILL.md', skillContent('b'));
    await catalog.upsert('skills/b', skillContent('b'));
    expect(await new SkillCatalog(files, new RecordCatalogSnapshot(records)).load()).toBe('snapshot');

    await catalog.beginChange(['skills/b']);
    await files.deleteTree('skills/b');
    await catalog.remove('skills/b');
    await catalog.beginChange(['skills/never-existed']);
    await catalog.remove('skills/never-existed');
    const reloaded = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    expect(await reloaded.load()).toBe('snapshot');
    expect(reloaded.entries()).toEqual([]);
  });
});

describe('category descriptions in the snapshot', () => {
  it('a rescan stores them and a snapshot load serves them without reading files; an older snapshot reads them once', async () => {
    const files = new MemoryFileStore();
    const records = new MemoryRecordStore<unknown>();
    await files.write('skills/ops/DESCRIPTION.md', '---\ndescription: Running services.\n---\n');
    await files.write('skills/ops/deploy/SKILL.md', skillContent('deploy'));
    expect(await new SkillCatalog(files, new RecordCatalogSnapshot(records)).load()).toBe('rescan');

    let reads = 0;
    const counting = Object.assign(Object.create(files), { readText: async (p: string) => (reads++, files.readText(p)) });
    const second = new SkillCatalog(counting, new RecordCatalogSnapshot(records));
    expect(await second.load()).toBe('snapshot');
    expect([...(await second.categoryDescriptions())]).toEqual([['ops', 'Running services.']]);
    expect(reads).toBe(0);

    await records.delete('categories');
    const third = new SkillCatalog(counting, new RecordCatalogSnapshot(records));
    expect(await third.load()).toBe('snapshot');
    expect((await third.categoryDescriptions()).get('ops')).toBe('Running services.');
    expect(reads).toBe(1);
    expect(await new RecordCatalogSnapshot(records).loadCategoryDescriptions()).toEqual(new Map([['ops', 'Running services.']]));
  });
});

describe('upsertMany (a batched import)', () => {
  it('writes every entry of the batch and clears its markers in one step; a reload trusts the snapshot', async () => {
    const files = new MemoryFileStore();
    const records = new MemoryRecordStore<unknown>();
    await files.write('skills/a/SKILL.md', skillContent('a'));
    const catalog = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await catalog.load();
    const names = Array.from({ length: 30 }, (_, i) => `batch-${i}`);
    await catalog.beginChange(names.map((name) => `skills/${name}`));
    for (const name of names) await files.write(`skills/${name}/SKILL.md`, skillContent(name));
    const changes: string[] = [];
    catalog.onChange((change) => changes.push(change.kind === 'upsert' ? change.entry.name : change.kind));
    await catalog.upsertMany([...names.map((name) => ({ dir: `skills/${name}`, text: skillContent(name) })), { dir: 'skills/a', text: skillContent('a') }]);
    expect(changes).toEqual([...names, 'a']);
    const reloaded = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    expect(await reloaded.load()).toBe('snapshot');
    expect(reloaded.entries().map((e) => e.name).sort()).toEqual(['a', ...names].sort());
  });
});
