import { createTwoFilesPatch } from 'diff';
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
import { captureFiles, type SkillFiles } from '../ledger';
import { actorFor, isReview, usageSourceFor, type WriteContext } from '../../tools/writeContext';
import { skillGist } from '../skillGist';
import { readSkillMeta } from '../skillDocument';
import { scanSkillWrite } from '../writeScan';
import type { SkillEngine } from '../skillEngine';
import { archiveSkill, deleteSkill, withSkillLock, type HeldSkillLock } from '../skillLifecycle';

/**
 * `skill_manage`: create, edit, patch, delete, write_file, remove_file — Hermes' check order,
 * messages and result shapes (reference/hermes-spec.md §2–§3), on Knack's storage.
 *
 * Differences that are Knack's on purpose: every model write is scanned (before it is
 * published, so a blocked write never touches the store); `create` refuses descriptions over
 * 60 characters; review deletes archive; every mutation lands in the ledger.
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
type SkillAction = (typeof SKILL_ACTIONS)[number];

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function notFound(name: string, suffix = ''): string {
  return `Skill '${name}' not found. Use skills_list() to see available skills.${suffix}`;
}

function preview(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

function describe(content: string): string {
  return readSkillMeta(content).description ?? '';
}

/** Hermes' ownership guard for the review agent (newest rule: only agent-created, unpinned). */
async function reviewOwnershipRefusal(engine: SkillEngine, action: string, name: string): Promise<string | null> {
  let record;
  try {
    record = await engine.usage.find(name);
  } catch {
    return `Refusing background curator ${action} for skill '${name}': its ownership record could not be read.`;
  }
  if (record?.pinned) {
    return `Refusing background curator ${action} for skill '${name}': it is pinned. Pinned skills are off-limits to the review agent.`;
  }
  if (!record || record.created_by !== 'agent') {
    const owner = record?.source === 'import' ? 'imported' : 'user-owned';
    return (
      `Refusing background curator ${action} for skill '${name}': it is ${owner}, not agent-created ` +
      `(created_by=${record?.created_by ?? 'null'}). Skills the user wrote or imported are off-limits to the review agent; ` +
      `create a new class-level skill instead, or leave it.`
    );
  }
  return null;
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

function unifiedDiff(path: string, before: string | null, after: string | null): string {
  return createTwoFilesPatch(before === null ? '/dev/null' : path, after === null ? '/dev/null' : path, before ?? '', after ?? '');
}

interface PreparedWrite {
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

/** A checked change to an existing skill, ready to scan and commit. */
function planned(
  entry: CatalogEntry,
  change: { writes?: Array<[string, Uint8Array]>; deletes?: string[] },
  result: ToolSuccess,
  alreadyRead?: SkillFiles,
  listed?: string[],
): { success: true; write: PreparedWrite } {
  return {
    success: true,
    write: { entry, dir: entry.dir, name: entry.name, writes: new Map(change.writes ?? []), deletes: change.deletes ?? [], result, alreadyRead, listed },
  };
}

export class SkillManageTool {
  constructor(private readonly engine: SkillEngine) {}

  private lookup(name: string): CatalogEntry | undefined {
    return this.engine.catalog.findByName(name)[0];
  }

  async run(args: SkillManageArgs, context: WriteContext): Promise<ToolOutcome> {
    const action = str(args.action) ?? '';
    const name = str(args.name) ?? '';
    if (!SKILL_ACTIONS.includes(action as SkillAction)) {
      return fail(`Unknown action '${action}'. Use: create, edit, patch, delete, write_file, remove_file`);
    }
    if (!name) return fail("name is required: pass the skill's directory name.");

    // 1. Review preflight: ownership before anything else (Hermes dispatcher order).
    if (isReview(context) && action !== 'create') {
      const existing = this.lookup(name);
      if (existing) {
        const refusal = await reviewOwnershipRefusal(this.engine, action, name);
        if (refusal) return fail(refusal);
      }
    }

    // 2. Argument presence (Knack validates before staging, so nothing invalid is ever staged).
    const presence = this.presenceError(action as SkillAction, args);
    if (presence) return fail(presence);

    return withSkillLock(this.engine, name, (lock) => this.runLocked(action as SkillAction, name, args, context, lock));
  }

  private presenceError(action: SkillAction, args: SkillManageArgs): string | null {
    switch (action) {
      case 'create':
        return str(args.content)?.trim() ? null : "content is required for 'create': pass the full SKILL.md text (frontmatter and body).";
      case 'edit':
        return typeof args.content === 'string' ? null : "content is required for 'edit': pass the full new SKILL.md text.";
      case 'patch':
        if (!str(args.old_string)) return "old_string is required for 'patch': pass the exact text to replace.";
        if (typeof args.new_string !== 'string') return "new_string is required for 'patch' (an empty string deletes the match).";
        return null;
      case 'write_file':
        if (!str(args.file_path)) return "file_path is required for 'write_file', e.g. 'references/api.md'.";
        if (typeof args.file_content !== 'string') return "file_content is required for 'write_file'.";
        return null;
      case 'remove_file':
        return str(args.file_path) ? null : "file_path is required for 'remove_file'.";
      case 'delete':
        return null;
    }
  }

  private async runLocked(action: SkillAction, name: string, args: SkillManageArgs, context: WriteContext, lock: HeldSkillLock): Promise<ToolOutcome> {
    const prepared = await this.prepare(action, name, args, context);
    if (!prepared.success) return prepared;
    const write = prepared.write;

    // Prospective state of the skill, for the scan and the approval diff.
    const before: SkillFiles = write.entry ? await captureFiles(this.engine.files, write.dir, write.alreadyRead, write.listed) : new Map();
    const after: SkillFiles = new Map(before);
    for (const path of write.deletes) after.delete(path);
    for (const [path, bytes] of write.writes) after.set(path, bytes);

    let needsConfirmation: string | null = null;
    if (this.engine.settings().scanModelWrites && context.origin !== 'user' && action !== 'delete' && action !== 'remove_file') {
      const scan = scanSkillWrite(write.name, write.dir, after);
      if (scan.decision === 'block') {
        return fail(`Security scan blocked this skill (${scan.reason}). Nothing was saved.\n${scan.report}`, { scan_verdict: scan.verdict });
      }
      if (scan.decision === 'ask' && !context.replayingApproval) needsConfirmation = `the security scan needs your confirmation (${scan.reason})`;
    }

    const approval = this.engine.settings().writeApproval;
    const approvalRequired = approval === 'all' || (approval === 'review' && isReview(context));
    if ((approvalRequired || needsConfirmation) && !context.replayingApproval) {
      return this.stage(action, name, args, context, before, after, needsConfirmation ?? 'write approval is on');
    }

    if (action === 'delete') return this.commitDelete(write, args, context, before, lock);
    return this.commitWrite(action, write, context, before, after);
  }

  private async stage(
    action: SkillAction,
    name: string,
    args: SkillManageArgs,
    context: WriteContext,
    before: SkillFiles,
    after: SkillFiles,
    reason: string,
  ): Promise<ToolOutcome> {
    const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
    const diff = paths
      .filter((p) => {
        const a = before.get(p);
        const b = after.get(p);
        return !a || !b || textDecoder.decode(a) !== textDecoder.decode(b);
      })
      .map((p) =>
        unifiedDiff(p, before.has(p) ? textDecoder.decode(before.get(p)) : null, after.has(p) ? textDecoder.decode(after.get(p)) : null),
      )
      .join('\n');
    const payload = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== null));
    const gist = skillGist(payload, typeof args.content === 'string' ? describe(args.content) : '');
    const pending = await this.engine.pending.stage(
      { subsystem: 'skills', action, gist, origin: context.origin, payload, reason, diff },
      this.engine.clock(),
    );
    return ok({
      staged: true,
      pending_id: pending.id,
      gist,
      message: `Staged for approval because ${reason}. Not yet saved — the user reviews it in the Pending view.`,
    });
  }

  /** Checks and builds the change; nothing is written here. */
  private async prepare(
    action: SkillAction,
    name: string,
    args: SkillManageArgs,
    context: WriteContext,
  ): Promise<{ success: true; write: PreparedWrite } | (ToolOutcome & { success: false })> {
    const files = this.engine.files;
    switch (action) {
      case 'create': {
        const content = str(args.content)!;
        const category = args.category === undefined || args.category === null ? null : args.category;
        const error =
          validateName(name) ??
          validateCategory(category) ??
          validateFrontmatter(content, { forCreate: true }) ??
          validateContentSize(content, 'SKILL.md');
        if (error) return fail(error);
        const existing = this.lookup(name);
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
      case 'edit': {
        const content = str(args.content)!;
        const error = validateFrontmatter(content) ?? validateContentSize(content, 'SKILL.md');
        if (error) return fail(error);
        const entry = this.lookup(name);
        if (!entry) return fail(notFound(name));
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
      case 'patch': {
        const oldString = str(args.old_string)!;
        const newString = str(args.new_string)!;
        const entry = this.lookup(name);
        if (!entry) return fail(notFound(name));
        const filePath = str(args.file_path);
        let target = `${entry.dir}/SKILL.md`;
        let label = 'SKILL.md';
        if (filePath) {
          const pathError = validateFilePath(filePath);
          if (pathError) return fail(pathError);
          const resolved = resolveTarget(entry, filePath);
          if ('error' in resolved) return fail(resolved.error);
          target = resolved.path;
          label = target.endsWith('/SKILL.md') && target === `${entry.dir}/SKILL.md` ? 'SKILL.md' : filePath;
        }
        // Bytes, not text: the capture of the skill before the write reuses them exactly, and
        // the listing of the skill's files it needs too, made alongside the read.
        const [currentBytes, listed] = await Promise.all([files.read(target), files.walk(entry.dir)]);
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
        return planned(
          entry,
          { writes: [[target, textEncoder.encode(replaced.content)]] },
          ok({
            message: `Patched ${label} in skill '${name}' (${count} replacement${count === 1 ? '' : 's'}).`,
            strategy: replaced.strategy,
            _change: { old: preview(oldString, CHANGE_PATCH_PREVIEW_CHARS), new: preview(newString, CHANGE_PATCH_PREVIEW_CHARS) },
          }),
          new Map([[target, currentBytes]]),
          listed,
        );
      }
      case 'write_file': {
        const filePath = str(args.file_path)!;
        const fileContent = str(args.file_content)!;
        const error = validateFilePath(filePath) ?? validateFileBytes(fileContent) ?? validateContentSize(fileContent, filePath);
        if (error) return fail(error);
        const entry = this.lookup(name);
        if (!entry) return fail(notFound(name, " Create it first with action='create'."));
        const resolved = resolveTarget(entry, filePath);
        if ('error' in resolved) return fail(resolved.error);
        if (await files.exists(resolved.path)) {
          const refusal = readBeforeWriteRefusal(context, 'write_file', name, resolved.path, filePath);
          if (refusal) return refusal;
        }
        return planned(
          entry,
          { writes: [[resolved.path, textEncoder.encode(fileContent)]] },
          ok({ message: `File '${filePath}' written to skill '${name}'.`, path: resolved.path }),
        );
      }
      case 'remove_file': {
        const filePath = str(args.file_path)!;
        const error = validateFilePath(filePath);
        if (error) return fail(error);
        const entry = this.lookup(name);
        if (!entry) return fail(notFound(name));
        const resolved = resolveTarget(entry, filePath);
        if ('error' in resolved) return fail(resolved.error);
        if (resolved.path === `${entry.dir}/SKILL.md`) {
          return fail("SKILL.md cannot be removed with remove_file; use action='delete' to remove the whole skill.");
        }
        if (!(await files.exists(resolved.path))) {
          const available = (await files.walk(entry.dir))
            .map((p) => p.slice(entry.dir.length + 1))
            .filter((p) => ALLOWED_SUBDIRS.includes(p.split('/')[0]!));
          return fail(`File '${filePath}' not found in skill '${name}'.`, { available_files: available.length ? available : null });
        }
        const refusal = readBeforeWriteRefusal(context, 'remove_file', name, resolved.path, filePath);
        if (refusal) return refusal;
        return planned(entry, { deletes: [resolved.path] }, ok({ message: `File '${filePath}' removed from skill '${name}'.` }));
      }
      case 'delete': {
        const entry = this.lookup(name);
        if (!entry) return fail(notFound(name));
        const rawAbsorbed = args.absorbed_into;
        const absorbed = typeof rawAbsorbed === 'string' ? rawAbsorbed.trim() : '';
        if (isReview(context) && !absorbed) {
          return fail(
            `Refusing background curator delete for skill '${name}': the review agent may only retire a skill whose content was absorbed into an existing umbrella skill. ` +
              `Pass absorbed_into='<umbrella>' after patching the umbrella, or leave the skill.`,
            { _fail_closed: true },
          );
        }
        let pinned = false;
        try {
          pinned = (await this.engine.usage.find(name))?.pinned ?? false;
        } catch {
          pinned = false; // An unreadable record must not make a skill undeletable (Hermes fails open).
        }
        if (pinned) {
          return fail(
            `Skill '${name}' is pinned and cannot be deleted. Unpin it in the Skills view first (pin ${name} → unpin). Patches and edits are allowed on pinned skills.`,
          );
        }
        if (absorbed) {
          if (absorbed === name) return fail(`absorbed_into='${absorbed}' cannot equal the skill being deleted.`);
          if (!this.lookup(absorbed)) {
            return fail(`absorbed_into='${absorbed}' does not exist. Create or patch the umbrella skill first, then retry the delete.`);
          }
        }
        return planned(entry, {}, ok({ message: '' }));
      }
    }
  }

  private async commitWrite(
    action: SkillAction,
    write: PreparedWrite,
    context: WriteContext,
    before: SkillFiles,
    after: SkillFiles,
  ): Promise<ToolOutcome> {
    const engine = this.engine;
    const changedPaths = [...write.writes.keys(), ...write.deletes];
    const entry = await engine.ledger.prepare({
      actor: actorFor(context.origin),
      action,
      skill: write.name,
      before: new Map([...before].filter(([p]) => changedPaths.includes(p))),
      after: new Map([...after].filter(([p]) => changedPaths.includes(p))),
      evidence: { ...(context.sessionId ? { session_id: context.sessionId } : {}) },
    });
    const source = usageSourceFor(context.origin);
    await engine.committer.commit(
      `skill_manage ${action} ${write.name}`,
      { writes: [...write.writes.entries()], deletes: write.deletes },
      {
        ledger: entry,
        usage: [action === 'create' ? { op: 'created', name: write.name, source } : { op: 'bumpPatch', name: write.name }],
      },
    );
    // Empty support folders are harmless in OPFS; SKILL.md is what makes a skill.
    const skillMd = after.get(`${write.dir}/SKILL.md`);
    if (skillMd) await engine.catalog.upsert(write.dir, textDecoder.decode(skillMd));
    // A file the review agent just wrote counts as read: it may keep refining it.
    for (const path of write.writes.keys()) context.readPaths.add(path);
    engine.onChange?.({ skill: write.name, action, dir: write.dir });
    return write.result;
  }

  /** Both paths run the skill lifecycle under the lock this call already holds (skillLifecycle.ts). */
  private async commitDelete(
    write: PreparedWrite,
    args: SkillManageArgs,
    context: WriteContext,
    before: SkillFiles,
    lock: HeldSkillLock,
  ): Promise<ToolOutcome> {
    const absorbed = typeof args.absorbed_into === 'string' ? args.absorbed_into.trim() : '';
    const suffix = absorbed ? ` Content absorbed into '${absorbed}'.` : '';
    if (isReview(context)) {
      const archived = await archiveSkill(this.engine, write.name, { actor: 'review', evidence: { absorbed_into: absorbed }, lock });
      if (!archived.success) return fail(archived.error);
      return ok({ message: `Skill '${write.name}' archived (archived to ${archived.destination}).${suffix}`, _archived: true });
    }
    const deleted = await deleteSkill(this.engine, write.name, {
      actor: actorFor(context.origin),
      evidence: { absorbed_into: absorbed, archived: false },
      captured: before,
      lock,
    });
    if (!deleted.success) return fail(deleted.error);
    return ok({ message: `Skill '${write.name}' deleted.${suffix}` });
  }
}
