import { fail, ok, type ToolFailure, type ToolOutcome, type ToolSuccess } from '../../tools/toolResult';
import { textDecoder, textEncoder } from '../../storage/fileStore';
import {
  resolveSkillTarget,
  validateCategory,
  validateContentSize,
  validateFilePath,
  validateFileBytes,
  validateFrontmatter,
  validateName,
} from '../validation';
import { fuzzyFindAndReplace, formatNoMatchHint, filePreview } from '../fuzzyPatch';
import { ALLOWED_SUBDIRS, CHANGE_DESCRIPTION_PREVIEW_CHARS, CHANGE_PATCH_PREVIEW_CHARS } from '../constants';
import { SKILLS_ROOT, type CatalogEntry } from '../skillCatalog';
import type { SkillFiles } from '../ledger';
import { isReview, type WriteContext } from '../../tools/writeContext';
import { readSkillMeta } from '../skillDocument';
import type { SkillEngine } from '../skillEngine';

/**
 * The checking half of `skill_manage`, one function per action: each validates its arguments
 * against the skill as it is now and builds the change, without writing anything. The tool
 * (skillManage.ts) runs them under the skill's lock, then scans, stages or commits the result.
 */
export interface SkillManageArgs {
  action?: unknown;
  name?: unknown;
  content?: unknown;
  category?: unknown;
  old_string?: unknown;
  new_string?: unknown;
  replace_all?: unknown;
  file_path?: unknown;
  file_content?: unknown;
  absorbed_into?: unknown;
}

export const SKILL_ACTIONS = ['create', 'edit', 'patch', 'delete', 'write_file', 'remove_file'] as const;
export type SkillAction = (typeof SKILL_ACTIONS)[number];

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export interface PreparedWrite {
  entry: CatalogEntry | null;
  dir: string;
  name: string;
  writes: Map<string, Uint8Array>;
  deletes: string[];
  result: ToolSuccess;
  /** Exact bytes of files read while preparing, under the skill lock: the capture reuses them. */
  alreadyRead?: SkillFiles;
  /** Every file of the skill, listed while preparing under the skill lock: the capture reuses it. */
  listed?: string[];
}

export type Prepared = { success: true; write: PreparedWrite } | (ToolOutcome & { success: false });

/** What every action's check gets: the engine, the skill's name, the raw arguments, the caller. */
export interface PrepareRequest {
  engine: SkillEngine;
  name: string;
  args: SkillManageArgs;
  context: WriteContext;
}

/**
 * The skill a `name` argument means, the way `skill_view` finds it (`catalog.resolve`): its
 * folder name, else its frontmatter `name`, else a `category/name` path. More than one match
 * is `ambiguous`: the caller lists them rather than guessing (docs/skill-tools.md).
 */
export type SkillLookup = { kind: 'found'; entry: CatalogEntry } | { kind: 'missing' } | { kind: 'ambiguous'; candidates: CatalogEntry[] };

export function lookupSkill(engine: SkillEngine, name: string): SkillLookup {
  const candidates = engine.catalog.resolve(name);
  if (candidates.length === 1) return { kind: 'found', entry: candidates[0]! };
  if (candidates.length === 0) return { kind: 'missing' };
  return { kind: 'ambiguous', candidates };
}

/** The failure for a name that matches several skills: each with its path and category. */
export function ambiguousFailure(name: string, candidates: CatalogEntry[]): ToolFailure {
  return fail(`Ambiguous skill name '${name}': ${candidates.length} skills match. Refusing to guess which one you mean.`, {
    candidates: candidates.map((c) => ({ name: c.dir.slice(SKILLS_ROOT.length + 1), category: c.category, frontmatter_name: c.frontmatterName })),
    hint: "Pass the full relative path as name, e.g. name='<category>/<name>'.",
  });
}

/** The one skill `name` means, or the failure to return (not found, or ambiguous). */
function existingSkill(engine: SkillEngine, name: string, notFoundSuffix = ''): CatalogEntry | ToolFailure {
  const found = lookupSkill(engine, name);
  if (found.kind === 'found') return found.entry;
  if (found.kind === 'ambiguous') return ambiguousFailure(name, found.candidates);
  return fail(notFound(name, notFoundSuffix));
}

function isFailure(value: CatalogEntry | ToolFailure): value is ToolFailure {
  return 'success' in value;
}

function notFound(name: string, suffix = ''): string {
  return `Skill '${name}' not found. Use skills_list() to see available skills.${suffix}`;
}

function preview(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

export function describe(content: string): string {
  return readSkillMeta(content).description ?? '';
}

function readBeforeWriteRefusal(context: WriteContext, action: string, name: string, path: string, label: string): ToolFailure | null {
  // An approved replay was checked when it was staged; the user has seen the diff since.
  if (!isReview(context) || context.readPaths.has(path) || context.replayingApproval) return null;
  return fail(
    `Refusing background curator ${action} for skill '${name}': the current ${label} content has not been loaded in this review turn. ` +
      `Call skill_view(name='${name}'${label === 'SKILL.md' ? '' : `, file_path='${label}'`}) first, then retry.`,
    { _read_before_write_required: true },
  );
}

/** The store path of a file inside a skill; refuses anything that would leave the skill. */
function resolveTarget(entry: CatalogEntry, filePath: string): { path: string } | { error: string } {
  const resolved = resolveSkillTarget(entry.dir, filePath);
  return resolved.ok ? { path: resolved.path } : { error: resolved.error };
}

/**
 * Runs the engine's file rules (e.g. the gate's evals/evals.json validation) on the text a
 * write or patch would leave: a refusal becomes the tool's failure, lint warnings ride along
 * on the success.
 */
async function fileRuleOutcome(
  engine: SkillEngine,
  entry: CatalogEntry,
  path: string,
  text: string,
  result: ToolSuccess,
  origin?: WriteContext['origin'],
): Promise<ToolSuccess | ToolFailure> {
  if (!engine.fileRules || !path.startsWith(`${entry.dir}/`)) return result;
  const relative = path.slice(entry.dir.length + 1);
  const readFile = (relativePath: string) => engine.files.read(`${entry.dir}/${relativePath}`);
  const checked = await engine.fileRules(relative, text, { skill: entry.name, readFile, ...(origin ? { origin } : {}) });
  if (!checked) return result;
  if (checked.error) return fail(checked.error, checked.problems === undefined ? {} : { problems: checked.problems });
  return checked.warnings && checked.warnings.length > 0 ? { ...result, warnings: checked.warnings } : result;
}

/** A checked change to an existing skill, ready to scan and commit. */
function planned(
  entry: CatalogEntry,
  change: { writes?: Array<[string, Uint8Array]>; deletes?: string[] },
  result: ToolSuccess,
  alreadyRead?: SkillFiles,
  listed?: string[],
): Prepared {
  return {
    success: true,
    write: { entry, dir: entry.dir, name: entry.name, writes: new Map(change.writes ?? []), deletes: change.deletes ?? [], result, alreadyRead, listed },
  };
}

function prepareCreate({ engine, name, args }: PrepareRequest): Prepared {
  const content = str(args.content)!;
  const category = args.category === undefined || args.category === null ? null : args.category;
  const error =
    validateName(name) ?? validateCategory(category) ?? validateFrontmatter(content, { forCreate: true }) ?? validateContentSize(content, 'SKILL.md');
  if (error) return fail(error);
  // A new folder: only a folder of that name is a clash (a frontmatter name elsewhere is not).
  const existing = engine.catalog.findByName(name)[0];
  if (existing) return fail(`A skill named '${name}' already exists at ${existing.dir}. Use patch or edit to change it, or pick another name.`);
  const categoryName = typeof category === 'string' && category.trim() ? category.trim() : null;
  const dir = categoryName ? `${SKILLS_ROOT}/${categoryName}/${name}` : `${SKILLS_ROOT}/${name}`;
  return {
    success: true,
    write: {
      entry: null,
      dir,
      name,
      writes: new Map([[`${dir}/SKILL.md`, textEncoder.encode(content)]]),
      deletes: [],
      result: ok({
        message: `Skill '${name}' created.`,
        path: dir.slice(SKILLS_ROOT.length + 1),
        skill_md: `${dir}/SKILL.md`,
        _change: { description: preview(describe(content), CHANGE_DESCRIPTION_PREVIEW_CHARS) },
        ...(categoryName ? { category: categoryName } : {}),
        hint: `Add supporting files with skill_manage(action='write_file', name='${name}', file_path='references/<file>.md', file_content=...).`,
      }),
    },
  };
}

function prepareEdit({ engine, name, args, context }: PrepareRequest): Prepared {
  const content = str(args.content)!;
  const error = validateFrontmatter(content) ?? validateContentSize(content, 'SKILL.md');
  if (error) return fail(error);
  const entry = existingSkill(engine, name);
  if (isFailure(entry)) return entry;
  const target = `${entry.dir}/SKILL.md`;
  const refusal = readBeforeWriteRefusal(context, 'edit', name, target, 'SKILL.md');
  if (refusal) return refusal;
  return planned(
    entry,
    { writes: [[target, textEncoder.encode(content)]] },
    ok({
      message: `Skill '${name}' updated (full rewrite).`,
      path: entry.dir,
      _change: { description: preview(describe(content), CHANGE_DESCRIPTION_PREVIEW_CHARS) },
    }),
  );
}

/** The file a patch changes: SKILL.md unless `file_path` names a supporting file. */
function patchTarget(entry: CatalogEntry, filePath: string | undefined): { target: string; label: string } | ToolFailure {
  if (!filePath) return { target: `${entry.dir}/SKILL.md`, label: 'SKILL.md' };
  const pathError = validateFilePath(filePath);
  if (pathError) return fail(pathError);
  const resolved = resolveTarget(entry, filePath);
  if ('error' in resolved) return fail(resolved.error);
  const target = resolved.path;
  return { target, label: target.endsWith('/SKILL.md') && target === `${entry.dir}/SKILL.md` ? 'SKILL.md' : filePath };
}

async function preparePatch({ engine, name, args, context }: PrepareRequest): Promise<Prepared> {
  const oldString = str(args.old_string)!;
  const newString = str(args.new_string)!;
  const entry = existingSkill(engine, name);
  if (isFailure(entry)) return entry;
  const where = patchTarget(entry, str(args.file_path));
  if ('success' in where) return where;
  const { target, label } = where;
  // Bytes, not text: the capture of the skill before the write reuses them exactly, and
  // the listing of the skill's files it needs too, made alongside the read.
  const [currentBytes, listed] = await Promise.all([engine.files.read(target), engine.files.walk(entry.dir)]);
  if (currentBytes === null) return fail(`File not found: ${label}`);
  const current = textDecoder.decode(currentBytes);
  const refusal = readBeforeWriteRefusal(context, 'patch', name, target, label);
  if (refusal) return refusal;
  const replaced = fuzzyFindAndReplace(current, oldString, newString, args.replace_all === true);
  if (replaced.error) {
    return fail(replaced.error + formatNoMatchHint(replaced.error, replaced.count, oldString, current), { file_preview: filePreview(current) });
  }
  const sizeError = validateContentSize(replaced.content, label);
  if (sizeError) return fail(sizeError);
  if (label === 'SKILL.md') {
    const structure = validateFrontmatter(replaced.content);
    if (structure) return fail(`Patch would break SKILL.md structure: ${structure}`);
  }
  const count = replaced.count;
  const result = await fileRuleOutcome(
    engine,
    entry,
    target,
    replaced.content,
    ok({
      message: `Patched ${label} in skill '${name}' (${count} replacement${count === 1 ? '' : 's'}).`,
      strategy: replaced.strategy,
      _change: { old: preview(oldString, CHANGE_PATCH_PREVIEW_CHARS), new: preview(newString, CHANGE_PATCH_PREVIEW_CHARS) },
    }),
    context.origin,
  );
  if (!result.success) return result;
  return planned(entry, { writes: [[target, textEncoder.encode(replaced.content)]] }, result, new Map([[target, currentBytes]]), listed);
}

async function prepareWriteFile({ engine, name, args, context }: PrepareRequest): Promise<Prepared> {
  const filePath = str(args.file_path)!;
  const fileContent = str(args.file_content)!;
  const error = validateFilePath(filePath) ?? validateFileBytes(fileContent) ?? validateContentSize(fileContent, filePath);
  if (error) return fail(error);
  const entry = existingSkill(engine, name, " Create it first with action='create'.");
  if (isFailure(entry)) return entry;
  const resolved = resolveTarget(entry, filePath);
  if ('error' in resolved) return fail(resolved.error);
  if (await engine.files.exists(resolved.path)) {
    const refusal = readBeforeWriteRefusal(context, 'write_file', name, resolved.path, filePath);
    if (refusal) return refusal;
  }
  const written = ok({ message: `File '${filePath}' written to skill '${name}'.`, path: resolved.path });
  const result = await fileRuleOutcome(engine, entry, resolved.path, fileContent, written, context.origin);
  if (!result.success) return result;
  return planned(entry, { writes: [[resolved.path, textEncoder.encode(fileContent)]] }, result);
}

async function prepareRemoveFile({ engine, name, args, context }: PrepareRequest): Promise<Prepared> {
  const filePath = str(args.file_path)!;
  const error = validateFilePath(filePath);
  if (error) return fail(error);
  const entry = existingSkill(engine, name);
  if (isFailure(entry)) return entry;
  const resolved = resolveTarget(entry, filePath);
  if ('error' in resolved) return fail(resolved.error);
  if (resolved.path === `${entry.dir}/SKILL.md`) {
    return fail("SKILL.md cannot be removed with remove_file; use action='delete' to remove the whole skill.");
  }
  if (!(await engine.files.exists(resolved.path))) {
    const available = (await engine.files.walk(entry.dir))
      .map((p) => p.slice(entry.dir.length + 1))
      .filter((p) => ALLOWED_SUBDIRS.includes(p.split('/')[0]!));
    return fail(`File '${filePath}' not found in skill '${name}'.`, { available_files: available.length ? available : null });
  }
  const refusal = readBeforeWriteRefusal(context, 'remove_file', name, resolved.path, filePath);
  if (refusal) return refusal;
  return planned(entry, { deletes: [resolved.path] }, ok({ message: `File '${filePath}' removed from skill '${name}'.` }));
}

/** The umbrella named by `absorbed_into`, trimmed; '' when there is none. */
export function absorbedInto(args: SkillManageArgs): string {
  return typeof args.absorbed_into === 'string' ? args.absorbed_into.trim() : '';
}

async function isPinned(engine: SkillEngine, name: string): Promise<boolean> {
  try {
    return (await engine.usage.find(name))?.pinned ?? false;
  } catch {
    return false; // An unreadable record must not make a skill undeletable (Hermes fails open).
  }
}

async function prepareDelete({ engine, name, args, context }: PrepareRequest): Promise<Prepared> {
  const entry = existingSkill(engine, name);
  if (isFailure(entry)) return entry;
  const absorbed = absorbedInto(args);
  if (isReview(context) && !absorbed) {
    return fail(
      `Refusing background curator delete for skill '${name}': the review agent may only retire a skill whose content was absorbed into an existing umbrella skill. ` +
        `Pass absorbed_into='<umbrella>' after patching the umbrella, or leave the skill.`,
      { _fail_closed: true },
    );
  }
  if (await isPinned(engine, entry.name)) {
    return fail(
      `Skill '${name}' is pinned and cannot be deleted. Unpin it in the Skills view first (pin ${name} → unpin). Patches and edits are allowed on pinned skills.`,
    );
  }
  if (absorbed) {
    if (absorbed === name || absorbed === entry.name) return fail(`absorbed_into='${absorbed}' cannot equal the skill being deleted.`);
    if (lookupSkill(engine, absorbed).kind === 'missing') {
      return fail(`absorbed_into='${absorbed}' does not exist. Create or patch the umbrella skill first, then retry the delete.`);
    }
  }
  return planned(entry, {}, ok({ message: '' }));
}

/** Checks and builds the change of one action; nothing is written here. */
export const PREPARE_BY_ACTION: Record<SkillAction, (request: PrepareRequest) => Prepared | Promise<Prepared>> = {
  create: prepareCreate,
  edit: prepareEdit,
  patch: preparePatch,
  write_file: prepareWriteFile,
  remove_file: prepareRemoveFile,
  delete: prepareDelete,
};
