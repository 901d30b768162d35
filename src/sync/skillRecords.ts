/**
 * A skill's records as they travel (`.knack/skills/<name>.json`, docs/sync.md, "Proof
 * travels"), and what comes in: the scanner before any write, held when dangerous, verdicts
 * measured elsewhere on the same content kept so this device can show them and need not re-run
 * them.
 */
import { scanSkill } from '../skills/scanner';
import { skillContentHash } from '../skills/installedSource';
import type { SyncTransport } from './transport';
import { encodeRecord, parseRecord, recordPath, RECORD_FORMAT, type KnackSkillRecord, type RemoteLayout, type SyncedVerdict } from './syncLayout';
import type { SyncedFiles, SyncStateStore } from './syncState';
import type { LocalLibrary, LocalSkill } from './localLibrary';

export interface RemoteSkill {
  files: SyncedFiles | null;
  record: KnackSkillRecord | null;
  recordBytes: Uint8Array | null;
}

export type TakeResult = { ok: true } | { ok: false; notice: string };

export function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `skillContentHash` of synced files (the hash a verdict names). */
export function filesHash(files: SyncedFiles): Promise<string> {
  return skillContentHash(new Map([...files].map(([path, file]) => [path, file.bytes])), new Map([...files].map(([path, file]) => [path, file.mode])));
}

/** The verdicts of `record` measured on exactly `files`. */
async function matchingVerdicts(files: SyncedFiles, record: KnackSkillRecord): Promise<SyncedVerdict[]> {
  if (record.verdicts.length === 0) return [];
  const hash = await filesHash(files);
  return record.verdicts.filter((verdict) => verdict.contentHash === hash);
}

export class SkillRecords {
  constructor(
    private readonly local: LocalLibrary,
    private readonly state: SyncStateStore,
    /** The place keeps file modes itself (a git server does; GitHub's createCommitOnBranch and a folder do not). */
    private readonly placeKeepsModes: boolean,
  ) {}

  empty(): KnackSkillRecord {
    return { format: RECORD_FORMAT, version: 1, installed_from: null, verdicts: [] };
  }

  /** The record this device would send for `skill`: its own verdicts and those that arrived for this content. */
  async bytesFor(skill: LocalSkill): Promise<Uint8Array | null> {
    const hash = await filesHash(skill.files);
    const verdicts = new Map<string, SyncedVerdict>();
    const arrived = await this.state.arrivedVerdicts(skill.name);
    for (const verdict of arrived?.verdicts ?? []) if (verdict.contentHash === hash) verdicts.set(verdict.model, verdict);
    for (const verdict of skill.record.verdicts) if (verdict.contentHash === hash) verdicts.set(verdict.model, verdict);
    const record: KnackSkillRecord = { ...this.empty(), installed_from: skill.record.installed_from, verdicts: [...verdicts.values()] };
    if (!this.placeKeepsModes) record.modes = Object.fromEntries([...skill.files].map(([path, file]) => [path, file.mode]));
    if (!record.installed_from && record.verdicts.length === 0 && !record.modes) return null;
    return encodeRecord(record);
  }

  /**
   * A record that came in with `files`: its source, and its verdicts for exactly these files.
   * Those are kept twice: in the sync state, to send on and to show where they were measured,
   * and (unless `written` says the write already carried them) as the skill's own per-model
   * verdicts, so the gate does not run them again (docs/sync.md, "Proof travels"). A verdict
   * for other bytes is ignored.
   */
  async accept(name: string, files: SyncedFiles, record: KnackSkillRecord, written = false): Promise<void> {
    if (record.installed_from) await this.local.applyRecord(name, record);
    const matching = await matchingVerdicts(files, record);
    if (matching.length === 0) return;
    await this.state.putArrivedVerdicts({ name, verdicts: matching, record });
    if (!written) await this.local.acceptVerdicts(name, matching.map(({ model, verification }) => ({ model, verification })));
  }

  /** Writes what came in (files null: a deletion), after the scanner. */
  async take(name: string, local: LocalSkill | null, files: SyncedFiles | null, record: KnackSkillRecord | null, now: Date): Promise<TakeResult> {
    if (files === null) {
      if (!local) return { ok: true };
      const removed = await this.local.remove(name);
      return removed.ok ? removed : { ok: false, notice: `'${name}' was deleted on another device but stays here: ${removed.error}` };
    }
    const scan = scanSkill({ name, source: 'sync', files: [...files].map(([path, file]) => ({ path, content: file.bytes, executable: file.mode === 0o755 })) });
    if (scan.verdict === 'dangerous') {
      await this.state.putHeld({ name, files, remoteIds: {}, findings: scan.findings.map(({ severity, file, description }) => ({ severity, file, description })), at: now.toISOString() });
      return { ok: false, notice: `'${name}' came in dangerous (${scan.summary}): it is held for your decision and stays out of the library.` };
    }
    await this.state.removeHeld(name);
    const verdicts = record ? (await matchingVerdicts(files, record)).map(({ model, verification }) => ({ model, verification })) : [];
    if (local) await this.local.update(name, files, verdicts);
    else await this.local.create(name, files, verdicts);
    if (record) await this.accept(name, files, record, true);
    return { ok: true };
  }

  /** The files and records of `names` at `head`, in one read. */
  async readRemote(transport: SyncTransport, head: string | null, layout: RemoteLayout, names: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, RemoteSkill>> {
    const out = new Map<string, RemoteSkill>();
    const paths: string[] = [];
    for (const name of names) {
      for (const path of layout.skills.get(name)?.keys() ?? []) paths.push(`${name}/${path}`);
      if (layout.records.has(name)) paths.push(recordPath(name));
    }
    const bytes = head && paths.length > 0 ? await transport.readFiles(head, paths, signal) : new Map<string, Uint8Array>();
    for (const name of names) {
      const recordBytes = bytes.get(recordPath(name)) ?? null;
      const record = recordBytes ? parseRecord(recordBytes) : null;
      const entries = layout.skills.get(name);
      let files: SyncedFiles | null = null;
      if (entries) {
        files = new Map();
        for (const [path, entry] of entries) files.set(path, { bytes: bytes.get(`${name}/${path}`)!, mode: record?.modes?.[path] ?? entry.mode });
      }
      out.set(name, { files, record, recordBytes });
    }
    return out;
  }
}
