/**
 * One sync of the library with a place (docs/sync.md): read the place's head; if it moved, read
 * its listing and the files of the skills that changed there; decide each changed skill
 * three-way against its last synced version (syncDecision.ts); write what comes in (scanned
 * first), send what goes out as one compare-and-swap commit; when the place moved meanwhile,
 * read again, merge again, try again — at most `maxRounds` times, then say so.
 *
 * A sync that finds the head it last synced and nothing changed here makes one request.
 */
import { RemoteMovedError, type RemoteEntry, type SyncTransport } from './transport';
import { decideSkill, sameFiles } from './syncDecision';
import { isSkillFolderName, readLayout, recordPath, type RemoteLayout } from './syncLayout';
import type { SyncBase, SyncedFiles, SyncStateStore } from './syncState';
import type { LocalLibrary, LocalSkill } from './localLibrary';
import { SkillRecords, sameBytes, type RemoteSkill } from './skillRecords';

export const MAX_SYNC_ROUNDS = 5;
/** Local skills read at once when comparing the library with its bases. */
const READ_PARALLELISM = 16;

export interface SyncOptions {
  transport: SyncTransport;
  local: LocalLibrary;
  state: SyncStateStore;
  /** Identifies the place; a different key forgets the bases of the previous place. */
  placeKey: string;
  /** Skills changed here since the last sync, or 'all' to compare every skill (app open, Connect). */
  changed: ReadonlySet<string> | 'all';
  now?: () => Date;
  signal?: AbortSignal;
  maxRounds?: number;
}

export interface SyncOutcome {
  /** 'unsettled': the place kept moving for `maxRounds` rounds; nothing was lost, try again. */
  status: 'synced' | 'unsettled';
  head: string | null;
  sent: string[];
  received: string[];
  conflicts: string[];
  held: string[];
  notices: string[];
  rounds: number;
  at: string;
}

type Writes = Map<string, { bytes: Uint8Array; mode: number }>;

/** What one round collects to send, and the bases it will keep once the commit landed. */
interface Outgoing {
  writes: Writes;
  deletes: string[];
  sent: SyncBase[];
}

function idsOf(entries: ReadonlyMap<string, RemoteEntry> | undefined): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const [path, entry] of entries ?? []) ids[path] = `${entry.id}:${entry.mode.toString(8)}`;
  return ids;
}

function sameIds(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function commitMessage(sent: readonly string[]): string {
  if (sent.length === 0) return 'Knack sync: records';
  if (sent.length <= 3) return `Knack sync: ${sent.join(', ')}`;
  return `Knack sync: ${sent.slice(0, 3).join(', ')} and ${sent.length - 3} more`;
}

export class SyncEngine {
  readonly #o: SyncOptions;
  readonly #now: () => Date;
  readonly #records: SkillRecords;
  constructor(options: SyncOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
    this.#records = new SkillRecords(options.local, options.state, options.transport.kind === 'git');
  }

  async run(): Promise<SyncOutcome> {
    const { transport, state, placeKey } = this.#o;
    let place = await state.place();
    if (place?.placeKey !== placeKey) {
      await state.clear();
      place = { placeKey, lastHead: null, lastSyncedAt: null };
    }
    const outcome: SyncOutcome = { status: 'unsettled', head: place.lastHead, sent: [], received: [], conflicts: [], held: [], notices: [], rounds: 0, at: '' };
    let changed: ReadonlySet<string> | 'all' = place.lastSyncedAt === null ? 'all' : this.#o.changed;
    const max = this.#o.maxRounds ?? MAX_SYNC_ROUNDS;
    for (let round = 1; round <= max && outcome.status !== 'synced'; round++) {
      this.#o.signal?.throwIfAborted();
      outcome.rounds = round;
      const head = await transport.readHead(this.#o.signal);
      const bases = await state.bases();
      const here = await this.#readLocal(changed, bases);
      const conflicts = await state.conflicts();
      if (head === place.lastHead && here.changed.size === 0 && conflicts.length === 0) {
        outcome.status = 'synced';
        outcome.head = head;
        break;
      }
      const layout = readLayout(head ? (await transport.readTree(head, this.#o.signal)).entries : new Map());
      try {
        const newHead = await this.#round(head, layout, bases, here, conflicts.map((c) => c.name), outcome);
        place = { placeKey, lastHead: newHead, lastSyncedAt: this.#now().toISOString() };
        await state.setPlace(place);
        outcome.status = 'synced';
        outcome.head = newHead;
      } catch (error) {
        if (!(error instanceof RemoteMovedError)) throw error;
        // The place moved under us: what came in is written and its bases kept; merge again.
        changed = 'all';
      }
    }
    outcome.conflicts = (await state.conflicts()).map((conflict) => conflict.name).sort();
    outcome.held = (await state.held()).map((held) => held.name).sort();
    outcome.at = this.#now().toISOString();
    return outcome;
  }

  /** The local skills to compare, and which of them differ from their base (files or record). */
  async #readLocal(changed: ReadonlySet<string> | 'all', bases: Map<string, SyncBase>) {
    const names = (await this.#o.local.list()).filter(isSkillFolderName);
    const present = new Set(names);
    const locals = new Map<string, LocalSkill | null>();
    const differs = new Set<string>();
    const toRead = names.filter((name) => changed === 'all' || changed.has(name) || !bases.has(name));
    // A few skills read side by side: their OPFS and IndexedDB round trips overlap.
    let next = 0;
    const reader = async () => {
      while (next < toRead.length) {
        const name = toRead[next++]!;
        const base = bases.get(name);
        const skill = await this.#o.local.read(name);
        locals.set(name, skill);
        if (!base || !sameFiles(base.files, skill?.files ?? null)) differs.add(name);
        else if (skill && !sameBytes(base.recordBytes, await this.#records.bytesFor(skill))) differs.add(name);
      }
    };
    await Promise.all(Array.from({ length: READ_PARALLELISM }, reader));
    for (const name of bases.keys()) {
      if (present.has(name)) continue;
      locals.set(name, null);
      differs.add(name);
    }
    return { locals, changed: differs };
  }

  /** Skills whose listing (or record) at the place differs from their base. */
  #changedThere(layout: RemoteLayout, bases: Map<string, SyncBase>, conflicts: readonly string[]): Set<string> {
    const names = new Set<string>(conflicts);
    for (const name of new Set([...layout.skills.keys(), ...bases.keys()])) {
      const base = bases.get(name);
      const recordId = layout.records.get(name)?.id ?? null;
      if (!base || !sameIds(base.remoteIds, idsOf(layout.skills.get(name))) || base.recordId !== recordId) names.add(name);
    }
    return names;
  }

  /** One attempt: decide, write here, commit there. Returns the new head. */
  async #round(
    head: string | null,
    layout: RemoteLayout,
    bases: Map<string, SyncBase>,
    here: { locals: Map<string, LocalSkill | null>; changed: Set<string> },
    conflicts: readonly string[],
    outcome: SyncOutcome,
  ): Promise<string | null> {
    const { transport, state } = this.#o;
    const changedThere = this.#changedThere(layout, bases, conflicts);
    const theirs = await this.#records.readRemote(transport, head, layout, changedThere, this.#o.signal);
    const out: Outgoing = { writes: new Map(), deletes: [], sent: [] };
    const agreed: SyncBase[] = [];
    const gone: string[] = [];
    for (const name of [...new Set([...here.changed, ...changedThere])].sort()) {
      const local = here.locals.has(name) ? here.locals.get(name)! : await this.#o.local.read(name);
      const base = bases.get(name) ?? null;
      const remote: RemoteSkill = theirs.get(name) ?? { files: base?.files ?? null, record: null, recordBytes: base?.recordBytes ?? null };
      const action = decideSkill(name, base?.files ?? null, local?.files ?? null, remote.files);
      const remoteIds = idsOf(layout.skills.get(name));
      const recordId = layout.records.get(name)?.id ?? null;
      if ('notice' in action && action.notice) outcome.notices.push(action.notice);
      if (action.kind !== 'conflict' && conflicts.includes(name)) await state.removeConflict(name);
      if (action.kind === 'conflict') {
        await state.putConflict({ name, theirs: remote.files ?? new Map(), theirsIds: remoteIds, theirsRecordId: recordId, paths: action.conflicts.map((c) => c.path), at: this.#now().toISOString() });
        continue;
      }
      if (action.kind === 'none') {
        if (!local) {
          gone.push(name);
          continue;
        }
        // Same files on both sides: take their record's news, send ours if it says more.
        if (remote.record) await this.#records.accept(name, local.files, remote.record);
        const mine = await this.#records.bytesFor(await this.#o.local.read(name) ?? local);
        if (sameBytes(mine, remote.recordBytes)) agreed.push({ name, files: local.files, remoteIds, recordId, recordBytes: remote.recordBytes });
        else this.#queue(name, local.files, mine, layout, out, base);
        continue;
      }
      if (action.kind === 'pull' || action.kind === 'both') {
        if (!(await this.#take(name, local, action.files, remote, outcome))) continue;
        if (action.kind === 'pull') {
          if (action.files) agreed.push({ name, files: action.files, remoteIds, recordId, recordBytes: remote.recordBytes });
          else gone.push(name);
          continue;
        }
      }
      const files = action.files;
      const record = files ? await this.#records.bytesFor({ name, files, record: local?.record ?? this.#records.empty() }) : null;
      this.#queue(name, files, record, layout, out, base);
      outcome.sent.push(name);
    }
    await state.putBases(agreed, gone);
    if (out.writes.size === 0 && out.deletes.length === 0) return head;
    const newHead = await transport.commit({ expectedHead: head, writes: out.writes, deletes: out.deletes, message: commitMessage(outcome.sent) }, this.#o.signal);
    await this.#keepSent(newHead, out.sent);
    return newHead;
  }

  /** Queues one skill's files (null: its deletion) and its record for the commit. */
  #queue(name: string, files: SyncedFiles | null, record: Uint8Array | null, layout: RemoteLayout, out: Outgoing, base: SyncBase | null): void {
    const there = layout.skills.get(name) ?? new Map<string, RemoteEntry>();
    const thereIds = idsOf(there);
    for (const path of there.keys()) if (!files?.has(path)) out.deletes.push(`${name}/${path}`);
    for (const [path, file] of files ?? []) {
      // A file the place still has as last agreed, and that is unchanged here, is not sent again.
      const kept = base?.files.get(path);
      const unchanged = kept && thereIds[path] !== undefined && thereIds[path] === base?.remoteIds[path] && sameFiles(new Map([[path, kept]]), new Map([[path, file]]));
      if (!unchanged) out.writes.set(`${name}/${path}`, { bytes: file.bytes, mode: file.mode });
    }
    if (files && record) out.writes.set(recordPath(name), { bytes: record, mode: 0o644 });
    else if (layout.records.has(name)) out.deletes.push(recordPath(name));
    out.sent.push({ name, files: files ?? new Map(), remoteIds: {}, recordId: null, recordBytes: files ? record : null });
  }

  /** After the commit: the sent skills' bases, with the ids the place gave them. */
  async #keepSent(head: string, sent: readonly SyncBase[]): Promise<void> {
    if (sent.length === 0) return;
    const layout = readLayout((await this.#o.transport.readTree(head, this.#o.signal)).entries);
    const kept = sent.filter((base) => base.files.size > 0).map((base) => ({ ...base, remoteIds: idsOf(layout.skills.get(base.name)), recordId: layout.records.get(base.name)?.id ?? null }));
    await this.#o.state.putBases(kept, sent.filter((base) => base.files.size === 0).map((base) => base.name));
  }

  /** Writes what came in, after the scanner; false when it was held back or could not be written. */
  async #take(name: string, local: LocalSkill | null, files: SyncedFiles | null, remote: RemoteSkill, outcome: SyncOutcome): Promise<boolean> {
    const taken = await this.#records.take(name, local, files, remote.record, this.#now());
    if (taken.ok) outcome.received.push(name);
    else outcome.notices.push(taken.notice);
    return taken.ok;
  }
}
