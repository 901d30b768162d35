import type { LedgerActor } from '../tools/writeContext';
import { applyCommitEffects, type UsageEffect } from './commitEffects';
import type { FileChangeSet } from './fileChanges';
import { captureFiles, type LedgerEntry, type SkillFiles } from './ledger';
import { planRollbackChange } from './rollback';
import { ARCHIVE_DIR, SKILLS_ROOT } from './skillCatalog';
import { skillLockKey, type SkillEngine } from './skillEngine';
import type { SkillState } from './usageStore';

/**
 * The skill lifecycle: delete, archive, restore, rollback, pin and usage-state changes, for
 * every caller (the Skills view, skill_manage, the review agent, the curator). Each action
 * plans its change under the skill's lock and hands it to `commitSkillChange`, the one place
 * that takes the lock, writes the ledger entry with the files, updates the catalogue and tells
 * the other contexts (`engine.onChange`). Callers never lock or notify by hand.
 */
export type LifecycleFailure = { success: false; error: string };

/**
 * Proof that the caller runs inside `withSkillLock` for `skill`. Web Locks are not re-entrant,
 * so code that already holds a skill's lock (skill_manage) passes this instead of locking again.
 */
export interface HeldSkillLock {
  readonly skill: string;
  readonly held: boolean;
}

class SkillLockHandle implements HeldSkillLock {
  #held = true;
  constructor(readonly skill: string) {}
  get held(): boolean {
    return this.#held;
  }
  release(): void {
    this.#held = false;
  }
}

/** Handles made by `withSkillLock`: a look-alike object is not a held lock. */
const issuedLocks = new WeakSet<HeldSkillLock>();

/** Runs `work` under the skill's Web Lock (key `skill:<name>`), across tabs and workers. */
export function withSkillLock<T>(engine: SkillEngine, skill: string, work: (lock: HeldSkillLock) => Promise<T>): Promise<T> {
  return engine.locks.withLock(skillLockKey(skill), async () => {
    const lock = new SkillLockHandle(skill);
    issuedLocks.add(lock);
    try {
      return await work(lock);
    } finally {
      lock.release();
    }
  });
}

/** One change to one skill, planned under its lock. */
export interface SkillChange<T> {
  skill: string;
  /** The ledger entry's action and the change event's action. */
  action: string;
  /** The folder the change event names, so other contexts re-read it. */
  dir: string;
  /** Files to change and the two sides of the ledger entry; absent for record-only changes. */
  files?: {
    actor: LedgerActor;
    /** Journal label of the change. */
    label: string;
    before: SkillFiles;
    after: SkillFiles;
    changes: FileChangeSet;
    evidence?: Record<string, unknown>;
    rollbackOf?: string;
  };
  /** Usage-record updates, applied with the files (or alone for a record-only change). */
  usage?: UsageEffect[];
  /** Work after the commit point: tidying folders, updating the catalogue. */
  settle?: () => Promise<void>;
  result: T;
}

export type CommittedChange<T> = { success: true; entry: LedgerEntry | null; result: T };

/**
 * The one commit path of the lifecycle: lock (or check the caller's held lock), plan, ledger
 * entry and files as one journaled change, catalogue, then exactly one change event — sent even
 * if tidying after the commit point fails, since the files have changed by then.
 */
export async function commitSkillChange<T>(
  engine: SkillEngine,
  skill: string,
  plan: () => Promise<SkillChange<T> | LifecycleFailure>,
  held?: HeldSkillLock,
): Promise<CommittedChange<T> | LifecycleFailure> {
  const run = async (): Promise<CommittedChange<T> | LifecycleFailure> => {
    const change = await plan();
    if ('success' in change) return change;
    let entry: LedgerEntry | null = null;
    // A commit that throws changed nothing (the committer is all-or-nothing): no change event.
    if (change.files) {
      const { actor, label, before, after, changes, evidence, rollbackOf } = change.files;
      entry = await engine.ledger.prepare({ actor, action: change.action, skill: change.skill, before, after, evidence, rollbackOf });
      await engine.committer.commit(label, changes, { ledger: entry, usage: change.usage });
    } else if (change.usage?.length) {
      await applyCommitEffects({ usage: change.usage }, engine);
    }
    try {
      await change.settle?.();
    } finally {
      engine.onChange?.({ skill: change.skill, action: change.action, dir: change.dir });
    }
    return { success: true, entry, result: change.result };
  };
  if (!held) return withSkillLock(engine, skill, run);
  if (!issuedLocks.has(held) || !held.held || held.skill !== skill) {
    throw new Error(`commitSkillChange('${skill}') needs the lock of '${skill}' held by withSkillLock.`);
  }
  return run();
}

/** Removes a category folder a skill left empty (`skills/<category>`; the root stays). */
export async function removeEmptyCategory(engine: SkillEngine, dir: string): Promise<void> {
  const parts = dir.split('/');
  if (parts.length < 3) return; // skills/<name>: the root itself stays.
  const category = parts.slice(0, -1).join('/');
  if ((await engine.files.walk(category)).length === 0) await engine.files.deleteTree(category);
}

function archiveStamp(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Maps every path of `files` from under `from` to under `to`. */
function relocate(files: SkillFiles, from: string, to: string): SkillFiles {
  const moved: SkillFiles = new Map();
  for (const [path, bytes] of files) moved.set(to + path.slice(from.length), bytes);
  return moved;
}

export interface LifecycleOptions {
  actor: LedgerActor;
  evidence?: Record<string, unknown>;
  /** The skill's lock, when the caller already holds it. */
  lock?: HeldSkillLock;
}

/**
 * Deletes a skill for good: files, catalogue entry and usage record; the ledger entry keeps
 * the bytes, so a rollback brings it back. Pinned skills are refused. `captured`: the skill's
 * files as the caller read them under the same lock.
 */
export async function deleteSkill(
  engine: SkillEngine,
  name: string,
  options: LifecycleOptions & { captured?: SkillFiles },
): Promise<{ success: true; dir: string; entry: LedgerEntry } | LifecycleFailure> {
  const committed = await commitSkillChange(
    engine,
    name,
    async (): Promise<SkillChange<string> | LifecycleFailure> => {
      const skill = engine.catalog.findByName(name)[0];
      if (!skill) return { success: false, error: `Skill '${name}' not found; nothing to delete.` };
      // An unreadable record must not make a skill undeletable (fail open, as skill_manage does).
      const pinned = await engine.usage.find(name).then((record) => record?.pinned ?? false, () => false);
      if (pinned) return { success: false, error: `Skill '${name}' is pinned and cannot be deleted. Unpin it first.` };
      const before = options.captured ?? (await captureFiles(engine.files, skill.dir));
      return {
        skill: name,
        action: 'delete',
        dir: skill.dir,
        files: {
          actor: options.actor,
          label: `delete ${name}`,
          before,
          after: new Map(),
          changes: { writes: [], deletes: [...before.keys()] },
          evidence: options.evidence,
        },
        usage: [{ op: 'forget', name }],
        settle: async () => {
          await engine.files.deleteTree(skill.dir);
          await removeEmptyCategory(engine, skill.dir);
          await engine.catalog.remove(skill.dir);
        },
        result: skill.dir,
      };
    },
    options.lock,
  );
  return committed.success ? { success: true, dir: committed.result, entry: committed.entry! } : committed;
}

/**
 * Moves a skill to `skills/.archive/<name>` (timestamped name on collision) as one journaled
 * change: copies first, then the originals go, SKILL.md first. Chromium cannot move
 * directories, so this is a copy-and-delete. Restore is the way back.
 */
export async function archiveSkill(
  engine: SkillEngine,
  name: string,
  options: LifecycleOptions,
): Promise<{ success: true; destination: string; entry: LedgerEntry } | LifecycleFailure> {
  const committed = await commitSkillChange(
    engine,
    name,
    async (): Promise<SkillChange<string> | LifecycleFailure> => {
      const skill = engine.catalog.findByName(name)[0];
      if (!skill) return { success: false, error: `Skill '${name}' not found; nothing to archive.` };
      let destination = `${ARCHIVE_DIR}/${name}`;
      if ((await engine.files.list(destination)).length > 0) destination = `${ARCHIVE_DIR}/${name}-${archiveStamp(engine.clock())}`;
      const before = await captureFiles(engine.files, skill.dir);
      const after = relocate(before, skill.dir, destination);
      return {
        skill: name,
        action: 'archive',
        dir: skill.dir,
        files: {
          actor: options.actor,
          label: `archive ${name}`,
          before,
          after,
          changes: { writes: [...after.entries()], deletes: [...before.keys()] },
          evidence: { ...options.evidence, archived: true, destination, category: skill.category },
        },
        usage: [{ op: 'setState', name, state: 'archived' }],
        settle: async () => {
          await engine.files.deleteTree(skill.dir);
          await removeEmptyCategory(engine, skill.dir);
          await engine.catalog.remove(skill.dir);
        },
        result: destination,
      };
    },
    options.lock,
  );
  return committed.success ? { success: true, destination: committed.result, entry: committed.entry! } : committed;
}

/** Archived copies of `name`: the exact folder first, then `<name>-<14 digits>` newest first. */
export async function findArchived(engine: SkillEngine, name: string): Promise<string[]> {
  const entries = await engine.files.list(ARCHIVE_DIR);
  const exact = entries.filter((e) => e.kind === 'directory' && e.name === name).map((e) => e.name);
  const stamped = entries
    .filter((e) => e.kind === 'directory' && new RegExp(`^${name.replace(/[.]/g, '\\.')}-\\d{14}$`).test(e.name))
    .map((e) => e.name)
    .sort()
    .reverse();
  return [...exact, ...stamped].map((dir) => `${ARCHIVE_DIR}/${dir}`);
}

/** Moves the newest archived copy of a skill back to `skills/<name>` (flat), active again. */
export async function restoreSkill(
  engine: SkillEngine,
  name: string,
  options: Partial<LifecycleOptions> = {},
): Promise<{ success: true; dir: string } | LifecycleFailure> {
  const committed = await commitSkillChange(
    engine,
    name,
    async (): Promise<SkillChange<string> | LifecycleFailure> => {
      const [source] = await findArchived(engine, name);
      if (!source) return { success: false, error: `No archived skill named '${name}'.` };
      const destination = `${SKILLS_ROOT}/${name}`;
      if (engine.catalog.findByName(name).length > 0 || (await engine.files.list(destination)).length > 0) {
        return { success: false, error: `A skill named '${name}' already exists; rename or delete it before restoring.` };
      }
      const before = await captureFiles(engine.files, source);
      if (!before.has(`${source}/SKILL.md`)) return { success: false, error: `The archived copy of '${name}' has no SKILL.md.` };
      const after = relocate(before, source, destination);
      return {
        skill: name,
        action: 'restore',
        dir: destination,
        files: {
          actor: options.actor ?? 'user',
          label: `restore ${name}`,
          before,
          after,
          changes: { writes: [...after.entries()], deletes: [...before.keys()] },
          evidence: { ...options.evidence, from: source },
        },
        usage: [{ op: 'setState', name, state: 'active' }],
        settle: async () => {
          await engine.files.deleteTree(source);
          await engine.catalog.upsert(destination, new TextDecoder().decode(after.get(`${destination}/SKILL.md`)));
        },
        result: destination,
      };
    },
    options.lock,
  );
  return committed.success ? { success: true, dir: committed.result } : committed;
}

/**
 * Rolls back one ledger entry: the files it changed go back to their `before` side and the
 * files it created go away, as one journaled change. The rollback is itself a ledger entry
 * (with the current state as its `before`), so it can be rolled back in turn.
 */
export async function rollbackEntry(
  engine: SkillEngine,
  entryId: string,
  actor: LedgerActor = 'user',
): Promise<{ success: true; entry: LedgerEntry } | LifecycleFailure> {
  const target = await engine.ledger.get(entryId);
  if (!target) return { success: false, error: `Ledger entry ${entryId} not found.` };
  const committed = await commitSkillChange(engine, target.skill, () => planRollbackChange(engine, target, actor));
  return committed.success ? { success: true, entry: committed.entry! } : committed;
}

/** Pins or unpins a skill: a pinned skill cannot be deleted, and the review agent and curator leave it alone. */
export async function setPinned(
  engine: SkillEngine,
  name: string,
  pinned: boolean,
  options: { lock?: HeldSkillLock } = {},
): Promise<{ success: true; pinned: boolean } | LifecycleFailure> {
  const committed = await commitSkillChange(
    engine,
    name,
    async (): Promise<SkillChange<boolean>> => ({
      skill: name,
      action: pinned ? 'pin' : 'unpin',
      dir: engine.catalog.findByName(name)[0]?.dir ?? '',
      usage: [{ op: 'setPinned', name, pinned }],
      result: pinned,
    }),
    options.lock,
  );
  return committed.success ? { success: true, pinned: committed.result } : committed;
}

/**
 * Sets a skill's usage state (the curator's stale ↔ active, or `archived` when there are no
 * files left to move). `action` names the change event, e.g. `curator:stale`.
 */
export async function setSkillState(
  engine: SkillEngine,
  name: string,
  state: SkillState,
  options: { action: string; lock?: HeldSkillLock },
): Promise<{ success: true; state: SkillState } | LifecycleFailure> {
  const committed = await commitSkillChange(
    engine,
    name,
    async (): Promise<SkillChange<SkillState>> => ({
      skill: name,
      action: options.action,
      dir: engine.catalog.findByName(name)[0]?.dir ?? '',
      usage: [{ op: 'setState', name, state }],
      result: state,
    }),
    options.lock,
  );
  return committed.success ? { success: true, state: committed.result } : committed;
}
