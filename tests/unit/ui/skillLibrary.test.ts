import { describe, expect, it } from 'vitest';
import { entryFromSkillMd } from '../../../src/skills/skillCatalog';
import { emptyUsageRecord, type UsageRecord } from '../../../src/skills/usageStore';
import {
  NO_CATEGORY,
  buildRows,
  emptyFilters,
  filterOptions,
  filterRows,
  isFiltering,
  matchesQuery,
  ownerOf,
  replaceRowsOf,
  verificationGroup,
  type SkillFilters,
} from '../../../src/ui/state/skillLibrary';

const md = (name: string, description: string, extra = '') => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\nBody.\n`;

function record(name: string, change: Partial<UsageRecord>): UsageRecord {
  return { ...emptyUsageRecord(name), ...change };
}

const entries = [
  entryFromSkillMd('skills/devops/deploy-fly', md('deploy-fly', 'Use when deploying to Fly.io.')),
  entryFromSkillMd('skills/data/sql-tuning', md('sql-tuning', 'Use when a query is slow.', 'tags: [postgres, performance]\n')),
  entryFromSkillMd('skills/commit-style', md('commit-style', 'Use when writing commit messages.')),
];
const records = [
  record('deploy-fly', { source: 'user', state: 'stale', pinned: true }),
  record('sql-tuning', { source: 'import', verification: 'promoted' }),
  record('commit-style', { source: 'review', created_by: 'agent', verification: 'rejected' }),
  record('old-skill', { source: 'review', created_by: 'agent', state: 'archived', verification: 'staged' }),
];
const rows = buildRows(entries, records);
const names = (list: { name: string }[]) => list.map((row) => row.name);
const filters = (change: Partial<SkillFilters>): SkillFilters => ({ ...emptyFilters(), ...change });

describe('owner and verification words', () => {
  it('agent-created wins, imports are imported, everything else is yours', () => {
    expect(ownerOf({ created_by: 'agent', source: 'review' })).toBe('agent');
    expect(ownerOf({ created_by: null, source: 'import' })).toBe('imported');
    expect(ownerOf({ created_by: null, source: 'foreground' })).toBe('you');
    expect(ownerOf({ created_by: null, source: 'user' })).toBe('you');
    expect(ownerOf(null)).toBe('you');
  });

  it('promoted is verified, rejected is rejected, staged and unmeasured are unverified', () => {
    expect(verificationGroup('promoted')).toBe('verified');
    expect(verificationGroup('rejected')).toBe('rejected');
    expect(verificationGroup('staged')).toBe('unverified');
    expect(verificationGroup('unmeasured')).toBe('unverified');
  });

  it('reads the label the index shows: stale is unverified, approved staged is approved', () => {
    expect(verificationGroup({ verification: 'promoted', verificationStale: true })).toBe('unverified');
    expect(verificationGroup({ verification: 'rejected', verificationStale: true })).toBe('unverified');
    expect(verificationGroup({ verification: 'staged', approved: true })).toBe('approved');
    expect(verificationGroup({ verification: 'staged', approved: true, verificationStale: true })).toBe('unverified');
  });

  it('copies staleness and approval from the usage record, and filters on them', () => {
    const built = buildRows(entries, [
      record('sql-tuning', { verification: 'promoted', verification_stale: true }),
      record('commit-style', { verification: 'staged', approved_by: 'user' }),
    ]);
    expect(built.find((row) => row.name === 'sql-tuning')).toMatchObject({ verificationStale: true });
    expect(names(filterRows(built, filters({ verification: 'verified' })))).toEqual([]);
    expect(names(filterRows(built, filters({ verification: 'approved' })))).toEqual(['commit-style']);
  });
});

describe('buildRows', () => {
  it('joins catalogue and usage, adds archived skills from their record, sorts by name', () => {
    expect(names(rows)).toEqual(['commit-style', 'deploy-fly', 'old-skill', 'sql-tuning']);
    const archived = rows.find((row) => row.name === 'old-skill')!;
    expect(archived).toMatchObject({ live: false, state: 'archived', dir: 'skills/.archive/old-skill', owner: 'agent' });
    expect(rows.find((row) => row.name === 'deploy-fly')).toMatchObject({ category: 'devops', pinned: true, state: 'stale', live: true });
  });

  it('a skill without a usage record is yours, active and unmeasured', () => {
    const [row] = buildRows([entries[0]!], []);
    expect(row).toMatchObject({ owner: 'you', state: 'active', verification: 'unmeasured', pinned: false });
  });

  it('a live skill is never shown archived, even when its record says so', () => {
    const [row] = buildRows([entries[2]!], [record('commit-style', { state: 'archived' })]);
    expect(row!.state).toBe('active');
    expect(row!.live).toBe(true);
  });
});

describe('filterRows', () => {
  it('search matches name, description and tags; every term must match', () => {
    expect(names(filterRows(rows, filters({ query: 'postgres' })))).toEqual(['sql-tuning']);
    expect(names(filterRows(rows, filters({ query: 'FLY.IO' })))).toEqual(['deploy-fly']);
    expect(names(filterRows(rows, filters({ query: 'use when commit' })))).toEqual(['commit-style']);
    expect(names(filterRows(rows, filters({ query: 'slow fly' })))).toEqual([]);
    expect(filterRows(rows, filters({ query: '   ' }))).toHaveLength(rows.length);
  });

  it('filters by category, including skills without one', () => {
    expect(names(filterRows(rows, filters({ category: 'data' })))).toEqual(['sql-tuning']);
    expect(names(filterRows(rows, filters({ category: NO_CATEGORY })))).toEqual(['commit-style', 'old-skill']);
  });

  it('filters by owner, state and verification, and combines filters', () => {
    expect(names(filterRows(rows, filters({ owner: 'agent' })))).toEqual(['commit-style', 'old-skill']);
    expect(names(filterRows(rows, filters({ owner: 'imported' })))).toEqual(['sql-tuning']);
    expect(names(filterRows(rows, filters({ owner: 'you' })))).toEqual(['deploy-fly']);
    expect(names(filterRows(rows, filters({ state: 'archived' })))).toEqual(['old-skill']);
    expect(names(filterRows(rows, filters({ verification: 'unverified' })))).toEqual(['deploy-fly', 'old-skill']);
    expect(names(filterRows(rows, filters({ owner: 'agent', state: 'active' })))).toEqual(['commit-style']);
    expect(names(filterRows(rows, filters({ owner: 'agent', verification: 'verified' })))).toEqual([]);
  });

  it('isFiltering notices any filter, ignoring a blank search', () => {
    expect(isFiltering(emptyFilters())).toBe(false);
    expect(isFiltering(filters({ query: '  ' }))).toBe(false);
    expect(isFiltering(filters({ state: 'stale' }))).toBe(true);
  });

  it('matchesQuery is case-insensitive', () => {
    expect(matchesQuery(rows[0]!, 'COMMIT')).toBe(true);
  });
});

describe('filterOptions counts', () => {
  it('counts each option against the other active filters', () => {
    const options = filterOptions(rows, filters({ owner: 'agent' }));
    // Owner counts ignore the owner filter itself, so every owner option stays meaningful.
    expect(options.owner.map((o) => [o.value, o.count])).toEqual([
      ['', 4],
      ['you', 1],
      ['agent', 2],
      ['imported', 1],
    ]);
    // State counts apply the owner filter: two agent skills, one active, one archived.
    expect(options.state.map((o) => [o.value, o.count])).toEqual([
      ['', 2],
      ['active', 1],
      ['stale', 0],
      ['archived', 1],
    ]);
  });

  it('lists categories found plus "No category" when some skill has none', () => {
    const options = filterOptions(rows, emptyFilters());
    expect(options.category.map((o) => o.label)).toEqual(['All', 'data', 'devops', 'No category']);
    expect(options.category.find((o) => o.value === NO_CATEGORY)!.count).toBe(2);
  });
});

describe('replaceRowsOf: one skill’s change, not the whole list', () => {
  it('gives what buildRows gives after the change', () => {
    const added = entryFromSkillMd('skills/aaa-first', md('aaa-first', 'Use first.'));
    const changedRecords = [...records, record('aaa-first', { source: 'import' })];
    const after = replaceRowsOf(rows, 'aaa-first', [added], changedRecords.at(-1)!);
    expect(after).toEqual(buildRows([...entries, added], changedRecords));
  });

  it('drops the rows of a removed skill, and shows an archived one from its record', () => {
    const withoutFly = replaceRowsOf(rows, 'deploy-fly', [], null);
    expect(names(withoutFly)).not.toContain('deploy-fly');
    const archived = replaceRowsOf(rows, 'deploy-fly', [], record('deploy-fly', { state: 'archived' }));
    expect(archived.find((row) => row.name === 'deploy-fly')).toMatchObject({ live: false, state: 'archived' });
    expect(names(archived)).toEqual([...names(archived)].sort());
  });

  it('keeps two skills of one folder name in different categories', () => {
    const twins = [entryFromSkillMd('skills/a/twin', md('twin', 'A.')), entryFromSkillMd('skills/b/twin', md('twin', 'B.'))];
    const after = replaceRowsOf(rows, 'twin', twins, null);
    expect(after.filter((row) => row.name === 'twin').map((row) => row.dir)).toEqual(['skills/a/twin', 'skills/b/twin']);
  });

  it('leaves the rows it was given unchanged', () => {
    const before = [...rows];
    replaceRowsOf(rows, 'deploy-fly', [], null);
    expect(rows).toEqual(before);
  });
});

describe('filterOptions counts in one pass', () => {
  it('match filtering once per option, for every combination of one active filter', () => {
    const combos: Partial<SkillFilters>[] = [{}, { query: 'use' }, { category: 'devops' }, { owner: 'agent' }, { state: 'archived' }, { verification: 'verified' }, { category: NO_CATEGORY, query: 'commit' }];
    for (const combo of combos) {
      const active = filters(combo);
      const options = filterOptions(rows, active);
      for (const key of ['category', 'owner', 'state', 'verification'] as const) {
        for (const option of options[key]) {
          const expected = filterRows(rows, { ...active, [key]: option.value }).length;
          expect(option.count, `${JSON.stringify(combo)} ${key}=${option.value}`).toBe(expected);
        }
      }
    }
  });
});

describe('the source filter', () => {
  const installed = (sourceKey: string, kind: 'github' | 'well-known', url: string) => ({
    kind,
    url,
    sourceKey,
    path: '',
    revision: 'r1',
    upstreamDigest: 'sha256:x',
    installedHash: 'sha256:y',
    installedAt: '2026-12-01T00:00:00.000Z',
  });
  const withSources = buildRows(entries, [
    record('deploy-fly', { source: 'import', installed_from: installed('github:acme/skills@main', 'github', 'https://github.com/acme/skills') }),
    record('sql-tuning', { source: 'import', installed_from: installed('https://docs.example/.well-known/agent-skills/index.json', 'well-known', 'https://docs.example') }),
    record('commit-style', { source: 'user' }),
  ]);

  it('lists each source by a short label, and the skills not installed from a link', () => {
    const options = filterOptions(withSources, emptyFilters()).source;
    expect(options.map((option) => [option.label, option.count])).toEqual([
      ['All', 3],
      ['acme/skills', 1],
      ['docs.example', 1],
      ['Not installed from a link', 1],
    ]);
    expect(names(filterRows(withSources, filters({ source: 'github:acme/skills@main' })))).toEqual(['deploy-fly']);
    expect(names(filterRows(withSources, filters({ source: options[3]!.value })))).toEqual(['commit-style']);
    expect(isFiltering(filters({ source: 'github:acme/skills@main' }))).toBe(true);
  });

  it('offers no source options when no skill was installed from a link', () => {
    expect(filterOptions(rows, emptyFilters()).source.map((option) => option.label)).toEqual(['All']);
  });
});
