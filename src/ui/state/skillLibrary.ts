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
}

export const NO_CATEGORY = '(none)';

export const emptyFilters = (): SkillFilters => ({ query: '', category: '', owner: '', state: '', verification: '' });

export function isFiltering(filters: SkillFilters): boolean {
  return filters.query.trim() !== '' || filters.category !== '' || filters.owner !== '' || filters.state !== '' || filters.verification !== '';
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

/** The label fields of a usage record, copied onto its row. */
function labelFields(record: UsageRecord | null): Pick<SkillRow, 'verificationStale' | 'approved'> {
  return {
    ...(record?.verification_stale ? { verificationStale: true } : {}),
    ...(record?.approved_by === 'user' ? { approved: true } : {}),
  };
}

/** Joins the catalogue with usage records; archived skills come from their usage record alone. */
export function buildRows(entries: CatalogEntry[], records: UsageRecord[]): SkillRow[] {
  const byName = new Map(records.map((record) => [record.name, record]));
  const rows: SkillRow[] = entries.map((entry) => {
    const record = byName.get(entry.name) ?? null;
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
      live: true,
      ...(entry.parseError ? { parseError: entry.parseError } : {}),
    };
  });
  const liveNames = new Set(entries.map((entry) => entry.name));
  for (const record of records) {
    if (record.state !== 'archived' || liveNames.has(record.name)) continue;
    rows.push({
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
      live: false,
    });
  }
  return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every whitespace-separated term must appear in the name, the description or a tag. */
export function matchesQuery(row: SkillRow, query: string): boolean {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  const haystack = [row.name, row.description, ...row.tags].join('\n').toLowerCase();
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
      return verificationGroup(row) === value;
  }
}

export function filterRows(rows: SkillRow[], filters: SkillFilters, except?: FilterKey): SkillRow[] {
  const keys: FilterKey[] = ['category', 'owner', 'state', 'verification'];
  return rows.filter(
    (row) => matchesQuery(row, filters.query) && keys.every((key) => key === except || matchesField(row, key, filters[key])),
  );
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
  const count = (key: FilterKey, value: string) => filterRows(rows, filters, key).filter((row) => matchesField(row, key, value)).length;
  const categories = [...new Set(rows.map((row) => row.category).filter((c): c is string => c !== null))].sort();
  const withAll = (key: FilterKey, options: { value: string; label: string }[]): FilterOption[] => [
    { value: '', label: 'All', count: filterRows(rows, filters, key).length },
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
  };
}
