/**
 * One-click fixes for the export problems whose change is mechanical (docs/skill-tools.md,
 * "Export checks"). A fix is a real change to the skill: `planExportFix` computes the new
 * SKILL.md text (only the frontmatter changes; the body is never touched) and
 * `applyExportFix` saves it through the Skills view's edit path (skill_manage as the user:
 * one journaled change with its ledger entry and change event). An export never edits a
 * skill by itself.
 */
import { parseDocument, isMap, isScalar } from 'yaml';
import { decodeSkillText, parseSkillFile, replaceFrontmatterText, setFrontmatterFields } from './frontmatter';
import { SkillActions, type SkillActionResult } from './skillActions';
import type { SkillEngine } from './skillEngine';

export type ExportFixId = 'use-folder-name' | 'trim-description' | 'trim-compatibility' | 'join-allowed-tools' | 'escape-angle-brackets' | 'move-to-metadata';

/** What the fix button says. */
export const FIX_LABELS: Record<ExportFixId, string> = {
  'use-folder-name': 'Use the folder name as the name',
  'trim-description': 'Trim the description to 1,024 characters',
  'trim-compatibility': 'Trim compatibility to 500 characters',
  'join-allowed-tools': 'Write allowed-tools as one string',
  'escape-angle-brackets': 'Take < and > out of the description',
  'move-to-metadata': 'Move unread fields under metadata',
};

/** The standard's name rule: 1–64 lowercase letters or digits in single-hyphen-separated runs. */
export function isSpecName(name: string): boolean {
  return name.length <= 64 && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name);
}

const STANDARD = new Set(['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']);

/**
 * Top-level fields that some agent reads where they are, so moving them under `metadata` would
 * break that agent: Claude Code's extension fields and Hermes' own (docs/skill-tools.md).
 */
export const CONSUMER_FIELDS = new Set([
  'disable-model-invocation', 'user-invocable', 'argument-hint', 'model', 'context', 'agent', 'hooks', 'when_to_use',
  'version', 'author', 'platforms', 'environments', 'required_environment_variables', 'required_credential_files', 'prerequisites', 'tags', 'category',
]);

/** Unknown top-level fields that no agent is known to read, which the fix may move. */
export function movableFields(frontmatter: Record<string, unknown>): string[] {
  return Object.keys(frontmatter).filter((key) => !STANDARD.has(key) && !CONSUMER_FIELDS.has(key)).sort();
}

/** `text` cut to at most `limit` characters at the last sentence end, else the last word break. */
export function trimAtBoundary(text: string, limit: number): string {
  const chars = [...text.trim()];
  if (chars.length <= limit) return chars.join('');
  const head = chars.slice(0, limit).join('');
  const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentence >= limit / 2) return head.slice(0, sentence + 1);
  if (/[.!?]$/.test(head)) return head;
  const space = head.lastIndexOf(' ');
  return (space >= limit / 2 ? head.slice(0, space) : head).trimEnd();
}

/** `<Tag>` becomes `` `Tag` ``; any other `<` or `>` becomes words. */
export function withoutAngleBrackets(text: string): string {
  return text
    .replace(/<\/?([A-Za-z][\w.:-]*)[^<>]*>/g, (_, tag: string) => `\`${tag}\``)
    .replace(/<=/g, 'at most')
    .replace(/>=/g, 'at least')
    .replace(/</g, 'less than ')
    .replace(/>/g, ' greater than')
    .replace(/ {2,}/g, ' ');
}

export type FixPlan = { ok: true; content: string; summary: string } | { ok: false; error: string };

function moveToMetadata(content: string, keys: string[]): FixPlan {
  const parsed = parseSkillFile(content, { allowDuplicateKeys: true });
  if (!parsed.ok) return { ok: false, error: parsed.message };
  const doc = parseDocument(parsed.raw, { uniqueKeys: false });
  if (!isMap(doc.contents)) return { ok: false, error: 'the frontmatter is not a mapping' };
  const existing = doc.get('metadata');
  if (existing !== undefined && !isMap(existing)) return { ok: false, error: 'metadata is not a mapping, so nothing can move under it' };
  for (const key of keys) {
    if (doc.hasIn(['metadata', key])) return { ok: false, error: `metadata already has a '${key}'` };
    const pair = doc.contents.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
    doc.delete(key);
    doc.setIn(['metadata', key], pair?.value ?? null);
  }
  const edited = replaceFrontmatterText(content, doc.toString({ lineWidth: 0 }));
  return edited.ok ? { ok: true, content: edited.content, summary: `moved ${keys.join(', ')} under metadata` } : { ok: false, error: edited.message };
}

/** The new SKILL.md text for `fix`, for a skill stored in `folder`. */
export function planExportFix(fix: ExportFixId, folder: string, content: string): FixPlan {
  const parsed = parseSkillFile(content, { allowDuplicateKeys: true });
  if (!parsed.ok) return { ok: false, error: `SKILL.md does not parse (${parsed.message}); fix it by hand first` };
  const fm = parsed.frontmatter;
  const set = (fields: Record<string, unknown>, summary: string): FixPlan => {
    const edited = setFrontmatterFields(content, fields);
    return edited.ok ? { ok: true, content: edited.content, summary } : { ok: false, error: edited.message };
  };
  switch (fix) {
    case 'use-folder-name':
      if (!isSpecName(folder)) return { ok: false, error: `the folder '${folder}' is not a valid Agent Skills name either` };
      return set({ name: folder }, `name set to '${folder}'`);
    case 'trim-description': {
      if (typeof fm.description !== 'string') return { ok: false, error: 'the description is not text' };
      const trimmed = trimAtBoundary(fm.description, 1024);
      return set({ description: trimmed }, `description trimmed from ${[...fm.description].length} to ${[...trimmed].length} characters`);
    }
    case 'trim-compatibility':
      if (typeof fm.compatibility !== 'string') return { ok: false, error: 'compatibility is not text' };
      return set({ compatibility: trimAtBoundary(fm.compatibility, 500) }, 'compatibility trimmed to 500 characters');
    case 'join-allowed-tools': {
      const tools = fm['allowed-tools'];
      if (!Array.isArray(tools) || !tools.every((tool) => typeof tool === 'string')) return { ok: false, error: 'allowed-tools is not a list of names' };
      return set({ 'allowed-tools': tools.join(' ') }, 'allowed-tools written as one string');
    }
    case 'escape-angle-brackets':
      if (typeof fm.description !== 'string') return { ok: false, error: 'the description is not text' };
      return set({ description: withoutAngleBrackets(fm.description) }, 'angle brackets taken out of the description');
    case 'move-to-metadata': {
      const keys = movableFields(fm);
      if (keys.length === 0) return { ok: false, error: 'no field can move: the unknown ones are read by Claude Code or Hermes' };
      return moveToMetadata(content, keys);
    }
  }
}

/** Applies `fix` to the live skill `name` as one journaled user edit. */
export async function applyExportFix(engine: SkillEngine, name: string, fix: ExportFixId): Promise<SkillActionResult> {
  const entry = engine.catalog.findByName(name)[0];
  if (!entry) return { ok: false, error: `Skill '${name}' not found.` };
  const bytes = await engine.files.read(`${entry.dir}/SKILL.md`);
  if (!bytes) return { ok: false, error: `${name} has no SKILL.md.` };
  const plan = planExportFix(fix, name, decodeSkillText(bytes).text);
  if (!plan.ok) return { ok: false, error: `${FIX_LABELS[fix]}: ${plan.error}.` };
  const saved = await new SkillActions(engine).save('edit', { name, category: entry.category ?? '', content: plan.content });
  return saved.ok ? { ok: true, message: `Fixed ${name}: ${plan.summary}.` } : saved;
}
