/**
 * The Skills library as plain data: one row per skill (catalogue entry joined with its usage
 * record), the filters, and the counts next to each filter option. No runes and no storage,
 * so the rules are unit-tested in Node (tests/unit/ui/skillLibrary.test.ts).
 */
import { usageIndexLabel } from '../../gate/indexLabel';
import type { CatalogEntry } from '../../skills/skillCatalog';
import type { SkillState, UsageRecord, Verification } from '../../skills/usageStore';

/** Who a skill belongs to, in the words the filter uses. */
export type SkillOwner = 'you' | 'agent' | 'imported';
/** Verification as the user thinks of it: proven, approved without proof, not yet proven, or disproven. */
export type VerificationGroup = 'verified' | 'approved' | 'unverified' | 'rejected';

export interface SkillRow {
  name: string;
  /** `skills/<category>/<name>`, or `skills/.archive/<name>` for an archived skill. */
  dir: string;
  category: string | null;
  description: string;
  tags: string[];
  owner: SkillOwner;
  state: SkillState;
  verification: Verification;
  /** The verdict describes earlier bytes (an edit since): the index shows [unverified]. */
  verificationStale?: boolean;
  /** The user approved the staged verdict: the index shows [approved]. */
  approved?: boolean;
  pinned: boolean;
  /** Where it was installed from (its source record's sourceKey); null when not installed from a link. */
  source: string | null;
  /** What the source filter shows for `source`: the repository, the site, the ClawHub slug or the file. */
  sourceLabel: string | null;
  /** False for archived skills: they sit outside the catalogue and cannot be edited here. */
  live: boolean;
  parseError?: string;
}

/** '' = any value. `category: NO_CATEGORY` picks skills that sit directly under `skills/`. */
export interface SkillFilters {
  query: string;
  category: string;
  owner: '' | SkillOwner;
  state: '' | SkillState;
  verification: '' | VerificationGroup;
  /** A sourceKey, or NO_SOURCE for skills not installed from a link. */
  source: string;
}

export const NO_CATEGORY = '(none)';
/** The source filter's value for skills not installed from a link. */
export const NO_SOURCE = '(none)';

export const emptyFilters = (): SkillFilters => ({ query: '', category: '', owner: '', state: '', verification: '', source: '' });

export function isFiltering(filters: SkillFilters): boolean {
  return filters.query.trim() !== '' || filters.category !== '' || filters.owner !== '' || filters.state !== '' || filters.verification !== '' || filters.source !== '';
}

export function ownerOf(record: Pick<UsageRecord, 'created_by' | 'source'> | null): SkillOwner {
  if (record?.created_by === 'agent') return 'agent';
  if (record?.source === 'import') return 'imported';
  // created_by null: the user wrote it, or the chat agent wrote it at the user's request.
  return 'you';
}

/** What the group is read from: a row, or a bare verdict word (fresh, not approved). */
export type VerificationInput = Verification | Pick<SkillRow, 'verification' | 'verificationStale' | 'approved'>;

/**
 * The group of a skill, read from the label the skill index shows for it (gate/indexLabel.ts),
 * so the filter and the model never disagree: a stale promoted skill is unverified, an approved
 * staged one is approved, and a withheld (fresh rejected) one is rejected.
 */
export function verificationGroup(input: VerificationInput): VerificationGroup {
  const row = typeof input === 'string' ? { verification: input } : input;
  const label = usageIndexLabel({
    verification: row.verification,
    state: 'active',
    ...(row.verificationStale ? { stale: true as const } : {}),
    ...(row.approved ? { approvedBy: 'user' as const } : {}),
  });
  if (label === '[verified]') return 'verified';
  if (label === '[approved]') return 'approved';
  if (label === null) return 'rejected';
  return 'unverified';
}

/** A source in a few words (docs/install.md, "Updates"): `owner/repo` for GitHub, else the host or slug. */
export function sourceLabelOf(source: NonNullable<UsageRecord['installed_from']>): string {
  if (source.kind === 'github') return source.sourceKey.replace(/^github:/, '').replace(/@.*$/, '');
  if (source.kind === 'clawhub') return `ClawHub ${source.sourceKey.replace(/^clawhub:/, '')}`;
  try {
    const url = new URL(source.sourceKey);
    return source.kind === 'raw' ? `${url.host}${url.pathname}` : url.host;
  } catch {
    return source.sourceKey;
  }
}

function sourceFields(record: UsageRecord | null): Pick<SkillRow, 'source' | 'sourceLabel'> {
  const source = record?.installed_from ?? null;
  return source ? { source: source.sourceKey, sourceLabel: sourceLabelOf(source) } : { source: null, sourceLabel: null };
}

/** The label fields of a usage record, copied onto its row. */
function labelFields(record: UsageRecord | null): Pick<SkillRow, 'verificationStale' | 'approved'> {
  return {
    ...(record?.verification_stale ? { verificationStale: true } : {}),
    ...(record?.approved_by === 'user' ? { approved: true } : {}),
  };
}

/** The row of a catalogued skill. */
function liveRow(entry: CatalogEntry, record: UsageRecord | null): SkillRow {
  return {
    name: entry.name,
    dir: entry.dir,
    category: entry.category,
    description: entry.description,
    tags: entry.tags,
    owner: ownerOf(record),
    // A live skill is never "archived", whatever a stale record says.
    state: record && record.state !== 'archived' ? record.state : 'active',
    verification: record?.verification ?? 'unmeasured',
    ...labelFields(record),
    pinned: record?.pinned ?? false,
    ...sourceFields(record),
    live: true,
    ...(entry.parseError ? { parseError: entry.parseError } : {}),
  };
}

/** The row of an archived skill: it is out of the catalogue, so its usage record is all there is. */
function archivedRow(record: UsageRecord): SkillRow {
  return {
    name: record.name,
    dir: `skills/.archive/${record.name}`,
    category: null,
    description: '',
    tags: [],
    owner: ownerOf(record),
    state: 'archived',
    verification: record.verification,
    ...labelFields(record),
    pinned: record.pinned,
    ...sourceFields(record),
    live: false,
  };
}

const byName = (a: SkillRow, b: SkillRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Joins the catalogue with usage records; archived skills come from their usage record alone. */
export function buildRows(entries: CatalogEntry[], records: UsageRecord[]): SkillRow[] {
  const recordByName = new Map(records.map((record) => [record.name, record]));
  const rows: SkillRow[] = entries.map((entry) => liveRow(entry, recordByName.get(entry.name) ?? null));
  const liveNames = new Set(entries.map((entry) => entry.name));
  for (const record of records) {
    if (record.state !== 'archived' || liveNames.has(record.name)) continue;
    rows.push(archivedRow(record));
  }
  return rows.sort(byName);
}

/**
 * The rows with those of one skill name replaced: `entries` are the catalogue entries of that
 * name now, `record` its usage record. What a change of one skill costs the view: one pass
 * over the rows, no re-read of every usage record (docs/skill-tools.md "The Skills view at
 * scale"). Returns a new array; the result is what `buildRows` would give.
 */
export function replaceRowsOf(rows: readonly SkillRow[], name: string, entries: CatalogEntry[], record: UsageRecord | null): SkillRow[] {
  const fresh = entries.map((entry) => liveRow(entry, record));
  if (fresh.length === 0 && record?.state === 'archived') fresh.push(archivedRow(record));
  const kept = rows.filter((row) => row.name !== name);
  // Rows are sorted by name: the new ones go where the first later name starts.
  let low = 0;
  let high = kept.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (kept[mid]!.name < name) low = mid + 1;
    else high = mid;
  }
  kept.splice(low, 0, ...fresh);
  return kept;
}

/** Every whitespace-separated term must appear in the name, the description or a tag. */
export function matchesQuery(row: SkillRow, query: string): boolean {
  return matchesTerms(row, queryTerms(query));
}

function queryTerms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Lower-cased search text per row, built once: rows are replaced, never changed in place. */
const haystacks = new WeakMap<SkillRow, string>();

function matchesTerms(row: SkillRow, terms: string[]): boolean {
  if (terms.length === 0) return true;
  let haystack = haystacks.get(row);
  if (haystack === undefined) {
    haystack = [row.name, row.description, ...row.tags].join('\n').toLowerCase();
    haystacks.set(row, haystack);
  }
  return terms.every((term) => haystack.includes(term));
}

type FilterKey = Exclude<keyof SkillFilters, 'query'>;

function matchesField(row: SkillRow, key: FilterKey, value: string): boolean {
  if (value === '') return true;
  switch (key) {
    case 'category':
      return value === NO_CATEGORY ? row.category === null : row.category === value;
    case 'owner':
      return row.owner === value;
    case 'state':
      return row.state === value;
    case 'verification':
      return rowGroup(row) === value;
    case 'source':
      return (row.source ?? NO_SOURCE) === value;
  }
}

const FILTER_KEYS: FilterKey[] = ['category', 'owner', 'state', 'verification', 'source'];

export function filterRows(rows: SkillRow[], filters: SkillFilters, except?: FilterKey): SkillRow[] {
  const terms = queryTerms(filters.query);
  return rows.filter((row) => matchesTerms(row, terms) && FILTER_KEYS.every((key) => key === except || matchesField(row, key, filters[key])));
}

/** The value a row has for a filter (what picking that option matches). */
function fieldValue(row: SkillRow, key: FilterKey): string {
  switch (key) {
    case 'category':
      return row.category ?? NO_CATEGORY;
    case 'owner':
      return row.owner;
    case 'state':
      return row.state;
    case 'verification':
      return rowGroup(row);
    case 'source':
      return row.source ?? NO_SOURCE;
  }
}

/** The verification group per row, computed once: every list update counts every row. */
const groups = new WeakMap<SkillRow, VerificationGroup>();

function rowGroup(row: SkillRow): VerificationGroup {
  let group = groups.get(row);
  if (group === undefined) {
    group = verificationGroup(row);
    groups.set(row, group);
  }
  return group;
}

export interface FilterOption {
  value: string;
  label: string;
  count: number;
}

const OWNER_LABELS: Record<SkillOwner, string> = { you: 'You', agent: 'Agent-learned', imported: 'Imported' };
const STATE_LABELS: Record<SkillState, string> = { active: 'Active', stale: 'Stale', archived: 'Archived' };
const VERIFICATION_LABELS: Record<VerificationGroup, string> = {
  verified: 'Verified',
  approved: 'Approved',
  unverified: 'Unverified',
  rejected: 'Rejected',
};

export const ownerLabel = (owner: SkillOwner): string => OWNER_LABELS[owner];
export const stateLabel = (state: SkillState): string => STATE_LABELS[state];
export const verificationLabel = (input: VerificationInput): string => VERIFICATION_LABELS[verificationGroup(input)];

/**
 * Options for each select, counted against the other active filters (faceted counts), so a
 * number always says how many skills picking that option would show.
 */
export function filterOptions(rows: SkillRow[], filters: SkillFilters): Record<FilterKey, FilterOption[]> {
  // One pass over the rows: a row counts for its own value of a key when it passes the query
  // and every other key's filter (the same counts as filtering once per option, at 1,400 rows).
  const terms = queryTerms(filters.query);
  const totals = new Map<FilterKey, number>(FILTER_KEYS.map((key) => [key, 0]));
  const counts = new Map<FilterKey, Map<string, number>>(FILTER_KEYS.map((key) => [key, new Map()]));
  for (const row of rows) {
    if (!matchesTerms(row, terms)) continue;
    const values = FILTER_KEYS.map((key) => fieldValue(row, key));
    const passes = FILTER_KEYS.map((key, i) => filters[key] === '' || values[i] === filters[key]);
    const failing = passes.filter((pass) => !pass).length;
    FILTER_KEYS.forEach((key, i) => {
      if (failing > (passes[i] ? 0 : 1)) return; // another key's filter drops the row
      totals.set(key, totals.get(key)! + 1);
      const byValue = counts.get(key)!;
      byValue.set(values[i]!, (byValue.get(values[i]!) ?? 0) + 1);
    });
  }
  const count = (key: FilterKey, value: string) => counts.get(key)!.get(value) ?? 0;
  const categories = [...new Set(rows.map((row) => row.category).filter((c): c is string => c !== null))].sort();
  const sources = [...new Map(rows.filter((row) => row.source !== null).map((row) => [row.source!, row.sourceLabel ?? row.source!]))].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const withAll = (key: FilterKey, options: { value: string; label: string }[]): FilterOption[] => [
    { value: '', label: 'All', count: totals.get(key)! },
    ...options.map((option) => ({ ...option, count: count(key, option.value) })),
  ];
  return {
    category: withAll('category', [
      ...categories.map((category) => ({ value: category, label: category })),
      ...(rows.some((row) => row.category === null) ? [{ value: NO_CATEGORY, label: 'No category' }] : []),
    ]),
    owner: withAll('owner', (Object.keys(OWNER_LABELS) as SkillOwner[]).map((value) => ({ value, label: OWNER_LABELS[value] }))),
    state: withAll('state', (Object.keys(STATE_LABELS) as SkillState[]).map((value) => ({ value, label: STATE_LABELS[value] }))),
    verification: withAll(
      'verification',
      (Object.keys(VERIFICATION_LABELS) as VerificationGroup[]).map((value) => ({ value, label: VERIFICATION_LABELS[value] })),
    ),
    source: withAll('source', [
      ...sources.map(([value, label]) => ({ value, label })),
      ...(sources.length > 0 && rows.some((row) => row.source === null) ? [{ value: NO_SOURCE, label: 'Not installed from a link' }] : []),
    ]),
  };
}
