/**
 * The intent journal: multi-file operations that end all-or-nothing (docs/storage.md, guarantee 2).
 *
 * Chromium cannot move directories, so a skill cannot be swapped as a whole. Instead an
 * operation is written down before it starts and made durable in three phases:
 *
 *   1. staging   — the intent (paths only) is recorded; each new content is written to a
 *                  staged temp file next to its target. No target file has changed yet.
 *   2. committed — the intent is re-recorded as committed, now holding the undo
 *                  information: the previous bytes of every target (or "did not exist").
 *                  From here on the operation will happen: steps are applied in the order
 *                  given (staged file moved onto its target, deletions, tree removals), so
 *                  callers list supporting files first and SKILL.md last when creating, and
 *                  SKILL.md first when deleting.
 *   3. done      — the intent record is deleted.
 *
 * `recover()` (run at start-up) finishes every intent whose writer is gone: a staging intent
 * is dropped (its temp files deleted; targets were never touched), a committed one is rolled
 * forward (a staged file that is gone has already been moved into place), and if rolling
 * forward fails for good it is undone from the recorded previous bytes (state `undoing`,
 * which is resumable because restoring is idempotent). Then stray temp files are swept. Any interruption therefore ends, after
 * recovery, with either every target at its old content or every target at its new one.
 *
 * The journal holds no lock of its own on the targets: callers run it inside the lock of
 * what they change (e.g. `skill:<name>`). A run first settles any dead writer's intent that
 * touches the same paths, so a replay can never land on top of newer content. It works on the FileStore and RecordStore
 * interfaces, so it runs the same on OPFS + IndexedDB and in unit tests on memory stores.
 */
import { type FileData, type FileStore, type LockManager } from './fileStore';
import { type Liveness, randomId } from './liveness';
import type { RecordStore } from './recordStore';
import { isQuotaError, toStorageFullError } from './quota';
import { sweepTempFiles, tempPathFor } from './tempFiles';

/**
 * One change of a journaled operation. `group`: steps of one group are applied in their order,
 * different groups side by side (a batch of skills, one group each: docs/storage.md, "Batched
 * import"); steps without a group are applied after every group, in order.
 */
export type JournalOp =
  | {
      op: 'write';
      path: string;
      data: FileData;
      group?: number;
      /**
       * The target's bytes now (null: it does not exist), when the caller has just read them
       * under the lock that guards the target; the journal then does not read it again.
       */
      previous?: Uint8Array | null;
      /** May be applied side by side with the neighbouring unordered writes of its group. */
      unordered?: boolean;
    }
  | { op: 'delete'; path: string; group?: number; previous?: Uint8Array | null }
  /** Removes a directory; applied only when rolling forward, it has no undo (list its files as deletes first). */
  | { op: 'deleteTree'; path: string; group?: number };

export interface IntentStep {
  op: JournalOp['op'];
  path: string;
  /** See JournalOp: order matters within a group only. */
  group?: number;
  /**
   * A write whose order against the neighbouring unordered writes of its group does not
   * matter (a skill's supporting files; its SKILL.md comes after them): the writer applies
   * such a run side by side. Recovery still applies every step in order.
   */
  unordered?: boolean;
  /** write: the temp file holding the new content. */
  staged?: string;
  /**
   * write/delete: the target's bytes before the operation, null when it did not exist.
   * Recorded with the commit (kept in the intent record, not in OPFS: one IndexedDB put
   * costs far less than a copy-file, and it lands atomically with the commit itself).
   */
  previous?: Uint8Array | null;
}

export type IntentState = 'staging' | 'committed' | 'undoing';

export interface IntentRecord {
  id: string;
  /** What the operation is, e.g. "skill-create", "import", "archive". */
  kind: string;
  /** Liveness id of the context that runs it; recovery leaves live owners alone. */
  owner: string;
  createdAt: number;
  state: IntentState;
  steps: IntentStep[];
  /** Caller's notes (skill name, ledger entry id…), kept for diagnosis. */
  meta?: unknown;
}

export interface RunOptions {
  meta?: unknown;
  /**
   * Test hook: stop as if the page died right after this many durable actions (0 = before
   * the intent is recorded). Durable actions are, in order: record the intent, each staged
   * write, record the commit, each applied step, finish.
   * The run rejects with SimulatedCrash and leaves everything for `recover()`.
   */
  failAfterStep?: number;
}

export interface RecoveryReport {
  rolledForward: string[];
  rolledBack: string[];
  /** Intents left for a later start because their owner is still alive. */
  skippedLive: string[];
  failed: { id: string; error: string }[];
  sweptTempFiles: string[];
}

export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
}

const RECOVERY_LOCK_KEY = 'knack:recovery';
/** Groups applied at once by a writer (see applyInGroups). */
const APPLY_PARALLELISM = 8;
/** Unordered writes of one group applied at once (a skill of 300 files need not move them one by one). */
const UNORDERED_PARALLELISM = 8;

export interface JournalOptions {
  files: FileStore;
  intents: RecordStore<IntentRecord>;
  liveness: Liveness;
  /** Serialises recovery between tabs; optional where only one context exists. */
  locks?: LockManager;
  /**
   * Runs once an intent's steps are all applied, before its record is deleted — on the normal
   * path and when recovery rolls an intent forward — so records that describe the change
   * (ledger, usage) land if and only if the files did. Must be idempotent: a crash between
   * it and the record's deletion runs it again at the next start.
   */
  onCommitted?: (intent: IntentRecord) => Promise<void>;
}

export class Journal {
  private readonly files: FileStore;
  private readonly intents: RecordStore<IntentRecord>;
  private readonly liveness: Liveness;
  private readonly locks?: LockManager;
  private readonly onCommitted?: (intent: IntentRecord) => Promise<void>;
  private readonly running = new Set<string>();

  constructor(options: JournalOptions) {
    this.files = options.files;
    this.intents = options.intents;
    this.liveness = options.liveness;
    this.locks = options.locks;
    this.onCommitted = options.onCommitted;
  }

  /**
   * Runs `ops` all-or-nothing. Resolves with the intent id once every step is applied.
   * A failure before the commit point leaves the targets untouched (and a quota failure
   * becomes StorageFullError); a failure after it is rolled forward at once when possible,
   * else by the next `recover()`.
   */
  async run(kind: string, ops: JournalOp[], options: RunOptions = {}): Promise<string> {
    checkOps(ops);
    const id = `${Date.now().toString(36).padStart(9, '0')}${randomId(8)}`;
    const owner = this.liveness.self;
    const steps: IntentStep[] = ops.map((op, i) => ({
      op: op.op,
      path: op.path,
      ...(op.group !== undefined ? { group: op.group } : {}),
      ...(op.op === 'write' ? { staged: tempPathFor(op.path, owner, `${id}n${i}`) } : {}),
      ...(op.op === 'write' && op.unordered ? { unordered: true } : {}),
    }));
    const record: IntentRecord = { id, kind, owner, createdAt: Date.now(), state: 'staging', steps, meta: options.meta };
    const tempPaths = steps.flatMap((s) => (s.staged ? [s.staged] : []));

    let durableActions = 0;
    const checkpoint = () => {
      if (options.failAfterStep !== undefined && durableActions >= options.failAfterStep) {
        throw new SimulatedCrash(`simulated crash after ${durableActions} durable actions of intent ${id}`);
      }
      durableActions += 1;
    };

    await this.liveness.hold?.();
    await this.settleDeadIntentsOn(ops.map((op) => op.path));

    this.running.add(id);
    tempPaths.forEach((p) => this.liveness.markInUse(p));
    let committed = false;
    try {
      checkpoint();
      await this.intents.put(id, record);

      // Staging touches no target, so its files are written in parallel (each OPFS write
      // is several round trips to the browser process). All settle before any error is
      // raised, so nothing is still being written once run() has rejected.
      const staging = await Promise.allSettled(
        ops.map(async (op, i) => {
          const step = steps[i]!;
          if (op.op === 'deleteTree') return;
          if (op.op === 'write') {
            checkpoint();
            await this.files.write(step.staged!, op.data);
          }
          step.previous = op.previous !== undefined ? op.previous : await this.files.read(op.path);
        }),
      );
      const stagingFailure = staging.find((outcome) => outcome.status === 'rejected');
      if (stagingFailure) throw (stagingFailure as PromiseRejectedResult).reason;

      checkpoint();
      await this.intents.put(id, { ...record, state: 'committed' });
      committed = true;

      await this.applyInGroups(steps, checkpoint);

      checkpoint();
      await this.finish({ ...record, state: 'committed' });
      return id;
    } catch (err) {
      if (err instanceof SimulatedCrash) throw err;
      throw await this.afterFailure({ ...record, state: committed ? 'committed' : 'staging' }, err);
    } finally {
      this.running.delete(id);
      tempPaths.forEach((p) => this.liveness.release(p));
    }
  }

  /**
   * A writer that died mid-operation leaves its intent until the next start-up. Its lock is
   * gone, so a live tab may come to the same files first: settle the dead intent before
   * touching them, or a later recovery would replay old steps over newer content.
   */
  private async settleDeadIntentsOn(paths: string[]): Promise<void> {
    const pending = await this.intents.getAll();
    if (pending.length === 0) return;
    const live = await this.liveness.liveOwners();
    for (const intent of pending.filter(isIntentRecord)) {
      const ownerAlive = intent.owner === this.liveness.self ? this.running.has(intent.id) : live.has(intent.owner);
      if (ownerAlive || !intent.steps.some((step) => paths.some((path) => overlaps(path, step.path)))) continue;
      await this.settle(intent);
    }
  }

  /** Intents recorded and not finished (any owner). */
  async unfinished(): Promise<IntentRecord[]> {
    return this.intents.getAll();
  }

  /**
   * Completes or undoes every unfinished intent whose owner is gone, then sweeps stray temp
   * files. Safe to call at any time and from several tabs at once.
   */
  async recover(options: { sweep?: boolean } = {}): Promise<RecoveryReport> {
    return this.underRecoveryLock(() => this.recoverNow(options.sweep ?? true));
  }

  /**
   * Deletes temp files no live writer can publish. Separate from `recover` so start-up can
   * settle intents (fast: one record read) before the UI needs the files, and walk OPFS
   * for strays afterwards (slow on a large library). Strays are invisible to readers.
   */
  async sweep(): Promise<string[]> {
    return this.underRecoveryLock(() => sweepTempFiles(this.files, this.liveness));
  }

  private underRecoveryLock<T>(work: () => Promise<T>): Promise<T> {
    return this.locks ? this.locks.withLock(RECOVERY_LOCK_KEY, work) : work();
  }

  private async recoverNow(sweep: boolean): Promise<RecoveryReport> {
    const report: RecoveryReport = { rolledForward: [], rolledBack: [], skippedLive: [], failed: [], sweptTempFiles: [] };
    const live = await this.liveness.liveOwners();
    for (const intent of await this.intents.getAll()) {
      if (!isIntentRecord(intent)) {
        // Nothing can be done with it, and leaving it would fail every start-up.
        const id = String((intent as { id?: unknown })?.id ?? '?');
        report.failed.push({ id, error: 'malformed intent record dropped' });
        if (typeof (intent as { id?: unknown })?.id === 'string') await this.intents.delete(id);
        continue;
      }
      const ownerAlive = intent.owner === this.liveness.self ? this.running.has(intent.id) : live.has(intent.owner);
      if (ownerAlive) {
        report.skippedLive.push(intent.id);
        continue;
      }
      try {
        const outcome = await this.settle(intent);
        (outcome === 'forward' ? report.rolledForward : report.rolledBack).push(intent.id);
      } catch (err) {
        report.failed.push({ id: intent.id, error: String((err as Error)?.message ?? err) });
      }
    }
    if (sweep) report.sweptTempFiles = await sweepTempFiles(this.files, this.liveness);
    return report;
  }

  /** Brings one unfinished intent to an end state; says which way it went. */
  private async settle(intent: IntentRecord): Promise<'forward' | 'back'> {
    if (intent.state === 'staging') {
      await this.discard(intent);
      return 'back';
    }
    if (intent.state === 'committed') {
      let current: IntentStep | undefined;
      try {
        for (current of intent.steps) await this.applyStep(current);
        await this.finish(intent);
        return 'forward';
      } catch (err) {
        // Tree removals come last and their files' previous bytes are not recorded: past
        // that point there is no undo, only another attempt at the next recovery.
        if (current?.op === 'deleteTree') throw err;
        console.warn(`[knack] intent ${intent.id} (${intent.kind}) cannot be completed; undoing it`, err);
      }
    }
    await this.intents.put(intent.id, { ...intent, state: 'undoing' });
    await this.undo(intent);
    return 'back';
  }

  /**
   * The writer's apply phase: each group's steps in order, APPLY_PARALLELISM groups at a time
   * (each step is a round trip to OPFS; different skills need not wait for each other), then
   * the steps without a group in order. Recovery applies every step in order, which keeps the
   * order within each group as well.
   */
  private async applyInGroups(steps: IntentStep[], checkpoint: () => void): Promise<void> {
    const groups = new Map<number, IntentStep[]>();
    const rest: IntentStep[] = [];
    for (const step of steps) {
      if (step.group === undefined) rest.push(step);
      else groups.set(step.group, [...(groups.get(step.group) ?? []), step]);
    }
    const queue = [...groups.values()];
    let failure: unknown = null;
    await Promise.all(
      Array.from({ length: Math.min(APPLY_PARALLELISM, queue.length) }, async () => {
        for (let group = queue.shift(); group && failure === null; group = queue.shift()) {
          try {
            for (const run of orderedRuns(group)) {
              if (run.length === 1) {
                checkpoint();
                await this.applyStep(run[0]!);
              } else {
                await this.applySideBySide(run, checkpoint);
              }
            }
          } catch (err) {
            failure ??= err;
          }
        }
      }),
    );
    // Every group has stopped before the failure is raised: nothing is still being applied.
    if (failure !== null) throw failure;
    for (const step of rest) {
      checkpoint();
      await this.applyStep(step);
    }
  }

  /**
   * Applies a run of unordered writes UNORDERED_PARALLELISM at a time. Every started step
   * settles before a failure is raised, so nothing is still being applied afterwards.
   */
  private async applySideBySide(run: IntentStep[], checkpoint: () => void): Promise<void> {
    let next = 0;
    let failure: unknown = null;
    await Promise.all(
      Array.from({ length: Math.min(UNORDERED_PARALLELISM, run.length) }, async () => {
        while (next < run.length && failure === null) {
          const step = run[next++]!;
          try {
            checkpoint();
            await this.applyStep(step);
          } catch (err) {
            failure ??= err;
          }
        }
      }),
    );
    if (failure !== null) throw failure;
  }

  /** Applying a step twice is harmless, which is what makes roll-forward resumable. */
  private async applyStep(step: IntentStep): Promise<void> {
    if (step.op === 'write') {
      // A staged file that is gone has been moved into place already: only the apply
      // phase removes staged files of a committed intent, and the sweep runs after recovery.
      try {
        await this.files.move(step.staged!, step.path);
      } catch (err) {
        if ((err as { name?: unknown })?.name !== 'NotFoundError') throw err;
      }
    } else if (step.op === 'delete') {
      await this.files.delete(step.path);
    } else {
      await this.files.deleteTree(step.path);
    }
  }

  /** Restores every target to its content before the intent, in reverse order. */
  private async undo(intent: IntentRecord): Promise<void> {
    for (const step of [...intent.steps].reverse()) {
      if (step.op === 'deleteTree') continue; // never applied before the point of no undo
      if (step.previous === undefined) continue; // a staging record: targets untouched
      if (step.previous === null) await this.files.delete(step.path);
      else await this.files.write(step.path, step.previous);
    }
    await this.discard(intent);
  }

  /** Deletes the intent's staged files and record (targets untouched). */
  private async discard(intent: IntentRecord): Promise<void> {
    for (const step of intent.steps) if (step.staged) await this.files.delete(step.staged);
    await this.intents.delete(intent.id);
  }

  private async finish(intent: IntentRecord): Promise<void> {
    await this.onCommitted?.(intent);
    await this.intents.delete(intent.id);
  }

  /** In-process cleanup after a real (not simulated) failure; returns the error to throw. */
  private async afterFailure(intent: IntentRecord, err: unknown): Promise<unknown> {
    try {
      if (intent.state === 'staging') {
        await this.discard(intent);
      } else {
        await this.settle(intent);
      }
    } catch (cleanupErr) {
      console.warn(`[knack] intent ${intent.id} is left for recovery at next start`, cleanupErr);
    }
    return isQuotaError(err, { duringWrite: true }) ? toStorageFullError(err, 'the change') : err;
  }
}

function checkOps(ops: JournalOp[]): void {
  if (ops.length === 0) throw new TypeError('A journaled operation needs at least one step');
  const firstTree = ops.findIndex((op) => op.op === 'deleteTree');
  if (firstTree >= 0 && ops.slice(firstTree).some((op) => op.op !== 'deleteTree')) {
    throw new TypeError('deleteTree steps must come after every write and delete of the operation');
  }
  const seen = new Set<string>();
  for (const op of ops) {
    if (op.op !== 'deleteTree') {
      if (seen.has(op.path)) throw new TypeError(`"${op.path}" appears twice in one journaled operation`);
      seen.add(op.path);
    }
  }
}

/** True when one path is the other or lies inside it. */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function isIntentRecord(value: unknown): value is IntentRecord {
  const record = value as Partial<IntentRecord> | null;
  return (
    typeof record?.id === 'string' &&
    typeof record.owner === 'string' &&
    (record.state === 'staging' || record.state === 'committed' || record.state === 'undoing') &&
    Array.isArray(record.steps) &&
    record.steps.every((step) => typeof step?.path === 'string' && ['write', 'delete', 'deleteTree'].includes(step.op))
  );
}

/** A group's steps cut into runs: each unordered write run together, every other step alone. */
function orderedRuns(group: IntentStep[]): IntentStep[][] {
  const runs: IntentStep[][] = [];
  for (const step of group) {
    const last = runs[runs.length - 1];
    if (step.unordered && last?.[0]?.unordered) last.push(step);
    else runs.push([step]);
  }
  return runs;
}
