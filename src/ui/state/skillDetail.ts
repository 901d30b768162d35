/**
 * The open skill in the Skills view: its panel, its details and their display helpers
 * (skills.svelte.ts loads them). The details come in two steps (docs/skill-tools.md, "Opening
 * a large skill"): the text and the usage record first, then the file listing and the history,
 * so `files` and `history` are null while they are still being read.
 */
import { parseSkillFileLenient } from '../../skills/frontmatter';
import type { SkillActionResult } from '../../skills/skillActions';
import type { UsageRecord } from '../../skills/usageStore';
import type { SkillRow } from './skillLibrary';
import type { HistoryItem } from './skillHistory';

/** `dir` picks one of several skills sharing a folder name (a nested skill's link passes it). */
export type SkillPanel = { kind: 'none' } | { kind: 'detail'; name: string; dir?: string } | { kind: 'create' } | { kind: 'edit'; name: string };

export interface SkillDetail {
  name: string;
  /** The library row; null when the skill has no files now (deleted, or its creation rolled back). */
  row: SkillRow | null;
  /** SKILL.md exactly as stored. */
  text: string | null;
  /** Frontmatter as shown in the table: top-level keys with display values. */
  frontmatter: [string, string][];
  body: string;
  parseError: string | null;
  /** Real paths relative to the skill folder (skillPaths.ts); nested skills' files left out. Null while listing. */
  files: string[] | null;
  /** Nested skills inside this one, each its own skill: shown as links, not as files. */
  nested: { path: string; name: string; dir: string }[];
  usage: UsageRecord | null;
  /** Newest first; null while the ledger is being read. */
  history: HistoryItem[] | null;
}

export type SkillConfirm = { kind: 'delete'; name: string } | { kind: 'rollback'; name: string; entryId: string; summary: string };

export type ActionResult = SkillActionResult;

function displayValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) return value.join(', ');
  return JSON.stringify(value);
}

export function splitSkill(text: string | null): Pick<SkillDetail, 'frontmatter' | 'body' | 'parseError'> {
  if (text === null) return { frontmatter: [], body: '', parseError: null };
  // Lenient, like the catalogue: YAML that breaks on `key: value: more` still fills the table.
  const parsed = parseSkillFileLenient(text);
  if (!parsed.ok) return { frontmatter: [], body: '', parseError: parsed.message };
  return {
    frontmatter: Object.entries(parsed.frontmatter).map(([key, value]) => [key, displayValue(value)]),
    body: parsed.body,
    parseError: null,
  };
}

