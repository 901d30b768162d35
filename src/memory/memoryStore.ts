/**
 * The memory store (docs/learning-loop.md): add, replace and remove entries
 * of `memories/MEMORY.md` and `memories/USER.md`, one at a time or as an all-or-nothing batch.
 *
 * Every mutation takes the `memory` Web Lock and re-reads the file inside it, so writes from
 * other tabs, the review worker or the Memory view are never overwritten with a stale copy;
 * the write itself is atomic (temp file + move). Results are tool outcomes: the memory tool
 * returns them to the model as they are, and the Memory view shows their messages.
 *
 * No DOM here: the store runs on the UI thread and in workers alike.
 */
import type { FileStore, LockManager } from '../storage/fileStore';
import type { WriteOrigin } from '../tools/writeContext';
import { fail, ok, type ToolFailure, type ToolOutcome } from '../tools/toolResult';
import { formatCount } from '../tools/toolResult';
import {
  DEFAULT_MEMORY_LIMITS,
  ENTRY_DELIMITER,
  MAX_CONSOLIDATION_FAILURES_PER_TURN,
  MEMORY_FILE_NAMES,
  MEMORY_FILE_PATHS,
  type MemoryTarget,
  detectDrift,
  joinEntries,
  mostUsefulEntries,
  parseEntries,
  previewEntry,
  usageFraction,
  usageLabel,
  usedChars,
  usagePercent,
} from './memoryEntries';
import { findMemoryThreats, scanMemoryContent } from './memoryScan';

export const MEMORY_LOCK_KEY = 'memory';

/** Told to the model on every success so it does not write the same thing twice. */
export const WRITE_SAVED_NOTE = 'Write saved. This update is complete — do not repeat it.';

export interface MemoryStoreOptions {
  files: FileStore;
  locks: LockManager;
  limits?: Partial<Record<MemoryTarget, number>>;
  /** Called after a file changed (the app publishes `memory-changed`). */
  onChange?: (target: MemoryTarget) => void;
  /** Epoch milliseconds; drift backups are named with epoch seconds. */
  now?: () => number;
}

export interface MemoryWriteOptions {
  /**
   * Who writes. `user` (the Memory view) is the owner of the data: a scan finding becomes a
   * `warning` on the result instead of a refusal, and failures do not count against the
   * model's per-turn budget.
   */
  origin?: WriteOrigin;
  /** The turn the failure budget belongs to (default: one budget for the whole store). */
  turn?: string;
}

export interface MemoryOperation {
  action: string;
  content?: string;
  old_text?: string;
}

export interface MemoryFileState {
  target: MemoryTarget;
  entries: string[];
  used: number;
  limit: number;
  percent: number;
  /** Why the file would be refused by replace/remove (hand-edited), or null. */
  drift: string | null;
}

export interface MemorySnapshotOptions {
  memoryEnabled?: boolean;
  userEnabled?: boolean;
  /**
   * The characters both blocks' entries may take together, for a small model window: past it the
   * most useful entries are kept (`mostUsefulEntries`), the user profile's share first.
   */
  maxChars?: number;
  /** The request the entries are ranked against when they must shrink. */
  relevantTo?: string;
}

/**
 * The memory part of the system prompt, taken once at session start and never updated
 * mid-session (the prompt prefix stays cacheable). Writes change the files, not this.
 */
export interface MemorySnapshot {
  readonly memory: string | null;
  readonly user: string | null;
  /** Both blocks joined by a blank line; "" when memory is empty. */
  readonly text: string;
  readonly takenAt: number;
}

const SNAPSHOT_RULE = '═'.repeat(46);
const SNAPSHOT_TITLES: Record<MemoryTarget, string> = {
  memory: 'MEMORY (your personal notes)',
  user: 'USER PROFILE (who the user is)',
};

/** One file's block of the system prompt, or null when it has no entries. */
export function renderMemoryBlock(target: MemoryTarget, entries: readonly string[], used: number, limit: number): string | null {
  if (entries.length === 0) return null;
  return [SNAPSHOT_RULE, `${SNAPSHOT_TITLES[target]} [${usageLabel(used, limit)}]`, SNAPSHOT_RULE, entries.join(ENTRY_DELIMITER)].join('\n');
}

type EntryMatch = { index: number } | { error: ToolFailure; kind: 'no-match' | 'ambiguous' };

/** Change to a working copy of entries, or the reason it cannot be made. */
type Edit = { entries: string[]; skipped?: boolean; fields?: Record<string, unknown> };
type EditResult = Edit | { error: ToolFailure; countsAsFailure: boolean };

export class MemoryStore {
  readonly limits: Readonly<Record<MemoryTarget, number>>;
  private readonly failures = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: MemoryStoreOptions) {
    this.limits = { ...DEFAULT_MEMORY_LIMITS, ...(options.limits ?? {}) };
    this.now = options.now ?? (() => Date.now());
  }

  // ------------------------------------------------------------------------------------------
  // Reading

  async read(target: MemoryTarget): Promise<MemoryFileState> {
    const raw = await this.options.files.readText(MEMORY_FILE_PATHS[target]);
    return this.stateOf(target, raw);
  }

  /** The entries as on disk now (not the frozen snapshot). */
  async entries(target: MemoryTarget): Promise<string[]> {
    return (await this.read(target)).entries;
  }

  /**
   * The frozen system-prompt snapshot. Entries that match the threat scan (a hand edit, an
   * import) are replaced by a marker in the snapshot only; the file keeps them so the user
   * or the model can remove them.
   */
  async memorySnapshot(options: MemorySnapshotOptions = {}): Promise<MemorySnapshot> {
    const enabled: Record<MemoryTarget, boolean> = { memory: options.memoryEnabled ?? true, user: options.userEnabled ?? true };
    const blocks: Partial<Record<MemoryTarget, string | null>> = {};
    let room = options.maxChars ?? Infinity;
    // The user profile first: it spares the user from repeating themselves (docs/context-window.md).
    for (const target of ['user', 'memory'] as const) {
      if (!enabled[target]) {
        blocks[target] = null;
        continue;
      }
      const state = await this.read(target);
      const kept = room === Infinity ? state.entries : mostUsefulEntries(state.entries, room, options.relevantTo);
      room -= usedChars(kept);
      const shown = kept.map((entry) => {
        const threats = findMemoryThreats(entry);
        if (threats.length === 0) return entry;
        const ids = [...new Set(threats.map((t) => t.id))].join(', ');
        return `[BLOCKED: ${MEMORY_FILE_NAMES[target]} entry contained threat pattern(s): ${ids}. Left out of the system prompt; delete the original with memory(action=remove).]`;
      });
      blocks[target] = renderMemoryBlock(target, shown, state.used, state.limit);
    }
    const memory = blocks.memory ?? null;
    const user = blocks.user ?? null;
    return Object.freeze({ memory, user, text: [memory, user].filter((b): b is string => !!b).join('\n\n'), takenAt: this.now() });
  }

  // ------------------------------------------------------------------------------------------
  // Failure budget

  /** A new turn starts: the model may fail a few consolidations again. */
  resetConsolidationFailures(turn?: string): void {
    if (turn === undefined) this.failures.clear();
    else this.failures.delete(turn);
  }

  consolidationFailures(turn = ''): number {
    return this.failures.get(turn) ?? 0;
  }

  // ------------------------------------------------------------------------------------------
  // Mutations

  async add(target: MemoryTarget, content: string, options: MemoryWriteOptions = {}): Promise<ToolOutcome> {
    const text = content.trim();
    if (!text) return fail('Content cannot be empty.');
    const scan = this.scan(text, options);
    if (scan.blocked) return fail(scan.blocked);

    return this.mutate(target, options, { driftGuard: false }, (entries) => {
      if (entries.includes(text)) return { entries, skipped: true };
      return this.withinLimit(target, [...entries, text], entries, 'add', text.length);
    }, (result) => (result.skipped ? 'Entry already exists (no duplicate added).' : 'Entry added.'), scan.warning);
  }

  async replace(target: MemoryTarget, oldText: string, newContent: string, options: MemoryWriteOptions = {}): Promise<ToolOutcome> {
    const old = oldText.trim();
    const text = newContent.trim();
    if (!old) return fail('old_text cannot be empty.');
    if (!text) return fail("content cannot be empty for 'replace'. To delete the entry use action 'remove'.");
    const scan = this.scan(text, options);
    if (scan.blocked) return fail(scan.blocked);

    return this.mutate(target, options, { driftGuard: true }, (entries) => this.replaceIn(target, entries, old, text), () => 'Entry replaced.', scan.warning);
  }

  async remove(target: MemoryTarget, oldText: string, options: MemoryWriteOptions = {}): Promise<ToolOutcome> {
    const old = oldText.trim();
    if (!old) return fail('old_text cannot be empty.');
    return this.mutate(target, options, { driftGuard: true }, (entries) => this.removeFrom(target, entries, old), () => 'Entry removed.');
  }

  /**
   * Several operations on one file, all or nothing. Every new text is scanned before anything
   * is read; operations then apply in order to a working copy; the limit is checked only on
   * the final state (so "remove two, add one" works on a full store).
   */
  async applyBatch(target: MemoryTarget, operations: readonly MemoryOperation[], options: MemoryWriteOptions = {}): Promise<ToolOutcome> {
    if (operations.length === 0) return fail("operations is empty. Give at least one {action, content?, old_text?} object.");
    const warnings: string[] = [];
    for (const [i, op] of operations.entries()) {
      if (op.action !== 'add' && op.action !== 'replace') continue;
      const text = (op.content ?? '').trim();
      if (!text) continue; // reported with its position while applying
      const scan = this.scan(text, options);
      if (scan.blocked) return fail(`Operation ${i + 1}: ${scan.blocked} No operations were applied (batch is all-or-nothing).`);
      if (scan.warning) warnings.push(`Operation ${i + 1}: ${scan.warning}`);
    }

    let applied = 0;
    let skipped = 0;
    const replacedEntries: Record<number, string> = {};
    return this.mutate(
      target,
      options,
      { driftGuard: true },
      (original) => {
        let entries = original;
        for (const [i, op] of operations.entries()) {
          const step = this.batchStep(entries, op);
          if ('error' in step) {
            const error = `Operation ${i + 1} (${String(op.action)}): ${step.error.error} No operations were applied (batch is all-or-nothing).`;
            return { error: this.withEntries(target, original, fail(error, matchesOf(step.error))), countsAsFailure: true };
          }
          if (step.skipped) skipped++;
          else applied++;
          if (step.replaced !== undefined) replacedEntries[i + 1] = step.replaced;
          entries = step.entries;
        }
        const used = usedChars(entries);
        const limit = this.limits[target];
        if (used > limit) {
          const error =
            `After these operations memory would hold ${usageFraction(used, limit)} chars, over the limit. ` +
            'Remove or shorten more entries in the same batch, then retry — all in this turn. No operations were applied (batch is all-or-nothing).';
          return { error: this.withEntries(target, original, fail(error)), countsAsFailure: true };
        }
        return { entries, fields: Object.keys(replacedEntries).length > 0 ? { replaced_entries: replacedEntries } : undefined };
      },
      () => `Applied ${applied} operation(s).` + (skipped > 0 ? ` Skipped ${skipped} add(s) of entries that already exist.` : ''),
      warnings.length > 0 ? warnings.join(' ') : undefined,
    );
  }

  // ------------------------------------------------------------------------------------------
  // Internals

  private stateOf(target: MemoryTarget, raw: string | null): MemoryFileState {
    const entries = parseEntries(raw);
    const used = usedChars(entries);
    const limit = this.limits[target];
    return { target, entries, used, limit, percent: usagePercent(used, limit), drift: detectDrift(raw, limit) };
  }

  private scan(text: string, options: MemoryWriteOptions): { blocked?: string; warning?: string } {
    const finding = scanMemoryContent(text);
    if (!finding) return {};
    // The user's own edit is theirs to make; the warning still tells them what it looks like.
    if (options.origin === 'user') return { warning: finding.replace(/^Blocked: /, 'Warning: ').replace(/ so this entry was not saved\./, ' so double-check it.') };
    return { blocked: finding };
  }

  private find(entries: readonly string[], old: string): EntryMatch {
    // An entry equal to old_text wins, so a short entry inside a longer one stays addressable.
    const exact = entries.indexOf(old);
    if (exact !== -1) return { index: exact };
    const hits: number[] = [];
    entries.forEach((entry, i) => {
      if (entry.includes(old)) hits.push(i);
    });
    if (hits.length === 0) {
      return { kind: 'no-match', error: fail(`No entry matched '${old}'. old_text must be a piece of one entry's text, exactly as written; pick one from current_entries.`) };
    }
    const distinct = [...new Set(hits.map((i) => entries[i]!))];
    if (distinct.length > 1) {
      return { kind: 'ambiguous', error: fail(`Multiple entries matched '${old}'. Be more specific.`, { matches: distinct.map(previewEntry) }) };
    }
    return { index: hits[0]! };
  }

  private withinLimit(target: MemoryTarget, next: string[], current: readonly string[], action: 'add' | 'replace', addedChars: number): EditResult {
    const limit = this.limits[target];
    const used = usedChars(next);
    if (used <= limit) return { entries: next };
    const now = usedChars(current);
    const error =
      action === 'add'
        ? `Memory at ${usageFraction(now, limit)} chars. Adding this entry (${formatCount(addedChars)} chars) would exceed the limit. ` +
          "Consolidate now: merge or shorten entries with 'replace', drop stale ones with 'remove' (one 'operations' batch can do both), then retry this add — all in this turn."
        : `Memory at ${usageFraction(now, limit)} chars. This replacement would bring it to ${usageFraction(used, limit)}, over the limit. ` +
          "Shorten the new content, or remove other entries first, then retry — all in this turn.";
    return { error: this.withEntries(target, current, fail(error)), countsAsFailure: true };
  }

  private replaceIn(target: MemoryTarget, entries: string[], old: string, text: string): EditResult {
    const match = this.find(entries, old);
    if ('error' in match) return { error: match.kind === 'no-match' ? this.withEntries(target, entries, match.error) : match.error, countsAsFailure: match.kind === 'no-match' };
    const replaced = entries[match.index]!;
    // The new text may equal another entry: keep one copy.
    const next = [...new Set(entries.map((entry, i) => (i === match.index ? text : entry)))];
    const result = this.withinLimit(target, next, entries, 'replace', text.length);
    // Replace writes the whole entry; showing what it overwrote keeps that from being silent.
    return 'error' in result ? result : { ...result, fields: { replaced_entry: replaced } };
  }

  private removeFrom(target: MemoryTarget, entries: string[], old: string): EditResult {
    const match = this.find(entries, old);
    if ('error' in match) return { error: match.kind === 'no-match' ? this.withEntries(target, entries, match.error) : match.error, countsAsFailure: match.kind === 'no-match' };
    return { entries: entries.filter((_, i) => i !== match.index) };
  }

  /** One batch operation on the working copy; the limit waits for the final state. */
  private batchStep(entries: string[], op: MemoryOperation): { entries: string[]; replaced?: string; skipped?: boolean } | { error: ToolFailure } {
    const content = (op.content ?? '').trim();
    const old = (op.old_text ?? '').trim();
    switch (op.action) {
      case 'add':
        if (!content) return { error: fail('content is required for add.') };
        return entries.includes(content) ? { entries, skipped: true } : { entries: [...entries, content] };
      case 'replace': {
        if (!old) return { error: fail('old_text is required for replace.') };
        if (!content) return { error: fail("content is required for replace (use 'remove' to delete).") };
        const match = this.find(entries, old);
        if ('error' in match) return { error: match.error };
        return { entries: [...new Set(entries.map((e, i) => (i === match.index ? content : e)))], replaced: entries[match.index] };
      }
      case 'remove': {
        if (!old) return { error: fail('old_text is required for remove.') };
        const match = this.find(entries, old);
        if ('error' in match) return { error: match.error };
        return { entries: entries.filter((_, i) => i !== match.index) };
      }
      default:
        return { error: fail(`Unknown action '${String(op.action)}'. Use add, replace or remove.`) };
    }
  }

  /** Failures the model can recover from carry the file's entries and usage. */
  private withEntries(target: MemoryTarget, entries: readonly string[], failure: ToolFailure): ToolFailure {
    return { ...failure, current_entries: [...entries], usage: usageFraction(usedChars(entries), this.limits[target]) };
  }

  private countFailure(options: MemoryWriteOptions, failure: ToolFailure): ToolFailure {
    if (options.origin === 'user') return failure;
    const turn = options.turn ?? '';
    const count = (this.failures.get(turn) ?? 0) + 1;
    this.failures.set(turn, count);
    if (count <= MAX_CONSOLIDATION_FAILURES_PER_TURN) return failure;
    return fail(
      `Memory consolidation failed ${count} times this turn. Stop retrying: leave memory as it is and carry on with your reply. ` +
        'You can tidy memory in a later turn.',
      { done: true },
    );
  }

  private async mutate(
    target: MemoryTarget,
    options: MemoryWriteOptions,
    guard: { driftGuard: boolean },
    edit: (entries: string[]) => EditResult,
    message: (result: Edit) => string,
    warning?: string,
  ): Promise<ToolOutcome> {
    const path = MEMORY_FILE_PATHS[target];
    const outcome = await this.options.locks.withLock(MEMORY_LOCK_KEY, async (): Promise<ToolOutcome> => {
      // Re-read inside the lock: another tab or the review worker may have written since.
      const raw = await this.options.files.readText(path);
      const state = this.stateOf(target, raw);
      if (guard.driftGuard && state.drift) return this.refuseDrift(target, raw!, state.drift);
      const result = edit(state.entries);
      if ('error' in result) return result.countsAsFailure ? this.countFailure(options, result.error) : result.error;
      const changed = joinEntries(result.entries) !== joinEntries(state.entries);
      if (changed) await this.options.files.write(path, joinEntries(result.entries));
      const used = usedChars(result.entries);
      return ok({
        done: true,
        target,
        usage: usageLabel(used, this.limits[target]),
        entry_count: result.entries.length,
        message: message(result),
        note: WRITE_SAVED_NOTE,
        ...(result.fields ?? {}),
        ...(warning ? { warning } : {}),
        changed,
      });
    });
    if (outcome.success) {
      // Progress was made: the model gets a fresh failure budget.
      if (options.origin !== 'user') this.failures.delete(options.turn ?? '');
      if (outcome.changed) this.options.onChange?.(target);
      delete (outcome as Record<string, unknown>).changed;
    }
    return outcome;
  }

  /**
   * Replaces the whole file, only if it still holds exactly `expected` (a consolidation, or its
   * undo: docs/learning-loop.md, "Memory consolidation"). Every entry that is new is scanned as
   * any memory write from `options.origin`; a file changed meanwhile is left alone and refused,
   * so nothing written since is lost.
   */
  async replaceEntries(target: MemoryTarget, expected: readonly string[], next: readonly string[], options: MemoryWriteOptions = {}): Promise<ToolOutcome> {
    const old = new Set(expected);
    for (const entry of next) {
      if (old.has(entry)) continue;
      const scan = this.scan(entry, options);
      if (scan.blocked) return fail(scan.blocked);
    }
    const path = MEMORY_FILE_PATHS[target];
    const outcome = await this.options.locks.withLock(MEMORY_LOCK_KEY, async (): Promise<ToolOutcome> => {
      const state = this.stateOf(target, await this.options.files.readText(path));
      if (joinEntries(state.entries) !== joinEntries(expected)) {
        return fail(`${MEMORY_FILE_NAMES[target]} changed since this was prepared; nothing was changed, so nothing written since is lost.`);
      }
      if (usedChars(next) > this.limits[target]) return fail(`That would hold ${usageFraction(usedChars(next), this.limits[target])} chars, over the limit.`);
      await this.options.files.write(path, joinEntries(next));
      return ok({ done: true, target, usage: usageLabel(usedChars(next), this.limits[target]), entry_count: next.length, message: 'Entries replaced.' });
    });
    if (outcome.success) this.options.onChange?.(target);
    return outcome;
  }

  private async refuseDrift(target: MemoryTarget, raw: string, reason: string): Promise<ToolFailure> {
    const path = MEMORY_FILE_PATHS[target];
    const backup = `${path}.bak.${Math.floor(this.now() / 1000)}`;
    await this.options.files.write(backup, raw);
    return fail(
      `${MEMORY_FILE_NAMES[target]} was changed outside the memory tool (${reason}). Rewriting it now could lose text, ` +
        `so nothing was changed. Its current content is backed up at ${backup}.`,
      {
        drift_backup: backup,
        remediation:
          `Ask the user to open the Memory view and split ${MEMORY_FILE_NAMES[target]} into entries separated by a line with only "§" ` +
          "(each under the limit), or re-add the facts that matter with action 'add', which still works.",
      },
    );
  }
}

function matchesOf(failure: ToolFailure): Record<string, unknown> {
  return failure.matches ? { matches: failure.matches } : {};
}
