import { createTwoFilesPatch } from 'diff';
import { fail, ok, type ToolOutcome } from '../../tools/toolResult';
import { textDecoder } from '../../storage/fileStore';
import { type CatalogEntry } from '../skillCatalog';
import { captureFiles, type SkillFiles } from '../ledger';
import { actorFor, isReview, usageSourceFor, type WriteContext } from '../../tools/writeContext';
import { skillGist } from '../skillGist';
import { scanSkillWrite, type WriteScan } from '../writeScan';
import { codeRefusal, type ToolCodeRefusal } from '../forgedToolState';
import { toolPathKind } from '../forgedTools';
import type { SkillEngine } from '../skillEngine';
import { archiveSkill, deleteSkill, withSkillLock, type HeldSkillLock } from '../skillLifecycle';
import {
  PREPARE_BY_ACTION,
  SKILL_ACTIONS,
  absorbedInto,
  describe,
  lookupSkill,
  str,
  type Prepared,
  type PreparedWrite,
  type SkillAction,
  type SkillManageArgs,
} from './skillManagePrepare';

export { SKILL_ACTIONS, type SkillManageArgs } from './skillManagePrepare';

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

function unifiedDiff(path: string, before: string | null, after: string | null): string {
  return createTwoFilesPatch(before === null ? '/dev/null' : path, after === null ? '/dev/null' : path, before ?? '', after ?? '');
}

/**
 * `skill_manage`: create, edit, patch, delete, write_file, remove_file — Hermes' check order,
 * messages and result shapes (docs/skill-tools.md), on Knack's storage.
 *
 * Differences that are Knack's on purpose: every model write is scanned (before it is
 * published, so a blocked write never touches the store); `create` refuses descriptions over
 * 60 characters; review deletes archive; every mutation lands in the ledger.
 */
export class SkillManageTool {
  constructor(private readonly engine: SkillEngine) {}

  /** The folder name of the skill `name` means (its frontmatter name or path works too). */
  private lookup(name: string): CatalogEntry | undefined {
    const found = lookupSkill(this.engine, name);
    return found.kind === 'found' ? found.entry : undefined;
  }

  async run(args: SkillManageArgs, context: WriteContext): Promise<ToolOutcome> {
    const action = str(args.action) ?? '';
    const name = str(args.name) ?? '';
    if (!SKILL_ACTIONS.includes(action as SkillAction)) {
      return fail(`Unknown action '${action}'. Use: create, edit, patch, delete, write_file, remove_file`);
    }
    if (!name) return fail("name is required: pass the skill's directory name.");

    // 1. Review preflight: ownership before anything else (Hermes dispatcher order).
    // Usage records and locks are keyed by folder name; `name` may be the frontmatter name.
    const existing = action === 'create' ? undefined : this.lookup(name);
    const folderName = existing?.name ?? name;
    if (isReview(context) && existing) {
      const refusal = await reviewOwnershipRefusal(this.engine, action, folderName);
      if (refusal) return fail(refusal);
    }

    // 2. Argument presence (Knack validates before staging, so nothing invalid is ever staged).
    const presence = this.presenceError(action as SkillAction, args);
    if (presence) return fail(presence);

    return withSkillLock(this.engine, folderName, (lock) => this.runLocked(action as SkillAction, name, args, context, lock));
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
    let heldByScan: WriteScan | null = null;
    if (this.engine.settings().scanModelWrites && context.origin !== 'user' && action !== 'delete' && action !== 'remove_file') {
      const scan = scanSkillWrite(write.name, write.dir, after);
      if (scan.decision === 'block') {
        await this.noteRefusedToolCode(write, scan, 'blocked', null);
        return fail(`Security scan blocked this skill (${scan.reason}). Nothing was saved.\n${scan.report}`, { scan_verdict: scan.verdict });
      }
      if (scan.decision === 'ask' && !context.replayingApproval) {
        needsConfirmation = `the security scan needs your confirmation (${scan.reason})`;
        heldByScan = scan;
      }
    }

    const approval = this.engine.settings().writeApproval;
    const approvalRequired = approval === 'all' || (approval === 'review' && isReview(context));
    if ((approvalRequired || needsConfirmation) && !context.replayingApproval) {
      const staged = await this.stage(action, name, args, context, before, after, needsConfirmation ?? 'write approval is on');
      if (heldByScan) await this.noteRefusedToolCode(write, heldByScan, 'held', typeof staged.pending_id === 'string' ? staged.pending_id : null);
      return staged;
    }

    if (action === 'delete') return this.commitDelete(write, args, context, before, lock);
    return this.commitWrite(action, write, context, before, after);
  }

  /**
   * A write of a forged tool's code the scan refused (blocked, or held for confirmation): kept
   * on the skill's usage record, so its Tools entry says why it has no code
   * (docs/forged-tools.md, "Refused code"). A failure to keep it never changes the write's outcome.
   */
  private async noteRefusedToolCode(write: PreparedWrite, scan: WriteScan, decision: ToolCodeRefusal['decision'], pendingId: string | null): Promise<void> {
    const tools = [...write.writes.keys()].map((path) => path.slice(write.dir.length + 1)).flatMap((relative) => {
      const kind = toolPathKind(relative);
      return kind?.kind === 'code' ? [{ tool: kind.tool, relative }] : [];
    });
    if (tools.length === 0) return;
    const at = this.engine.clock().toISOString();
    await this.engine.usage
      .update(write.name, (record) => {
        const refusals = { ...(record.tool_refusals ?? {}) };
        for (const { tool, relative } of tools) refusals[tool] = codeRefusal(scan, relative, decision, pendingId, at);
        record.tool_refusals = refusals;
      })
      .catch((error: unknown) => console.warn('[knack] keeping a refused tool write failed', error));
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

  /** Checks and builds the change of one action (skillManagePrepare.ts); nothing is written here. */
  private async prepare(action: SkillAction, name: string, args: SkillManageArgs, context: WriteContext): Promise<Prepared> {
    return PREPARE_BY_ACTION[action]({ engine: this.engine, name, args, context });
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
    // A file the review agent just wrote counts as read: it may keep refining it in this run
    // (a deliberate difference from Hermes, docs/hermes-deviations.md).
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
    const absorbed = absorbedInto(args);
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
