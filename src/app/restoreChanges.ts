/**
 * What a restore writes, from its plan and the user's choices (docs/storage.md, "Backup and
 * restore"): the file steps of one journal intent and the record changes that land with it.
 * Pure apart from reading target files it merges (memory) — nothing is written here.
 */
import type { JournalOp } from '../storage/journal';
import { joinEntries, parseEntries } from '../memory/memoryEntries';
import { encodeRecordValue } from './backupManifest';
import { extractSecrets, insertSecrets } from './backupCrypto';
import type { LedgerEntry } from '../skills/ledger';
import { DERIVED_TABLES, type BackupTable, type TableChange } from './backupTables';
import { skillDirOf, skillDirsOf, type CollisionChoice, type ItemStatus, type RestorePlan } from './restorePlan';

export interface RestoreChoices {
  /** For every collision the user did not decide one by one. */
  collisions: CollisionChoice;
  /** Per skill folder. */
  skills?: Record<string, CollisionChoice>;
}

/** What happens to one skill folder of the backup. */
export type SkillDecision = { kind: 'write'; dir: string; replacing: boolean } | { kind: 'leave'; skipped: boolean };

export interface RestoreWrites {
  ops: JournalOp[];
  changes: TableChange[];
  /** Skill names whose files are written, for their locks and change events. */
  skills: string[];
  memoryWritten: boolean;
  sessions: string[];
  settingsKeys: string[];
  verdictSkills: string[];
}

const nameOf = (dir: string) => dir.slice(dir.lastIndexOf('/') + 1);

/** A folder next to `dir` that neither the profile nor the backup uses. */
function freeDir(dir: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) {
    const candidate = `${dir}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export function decideSkills(plan: RestorePlan, choices: RestoreChoices): Map<string, SkillDecision> {
  const taken = new Set([...skillDirsOf(plan.targetFiles), ...skillDirsOf(plan.backup.files.keys())]);
  const decisions = new Map<string, SkillDecision>();
  for (const skill of plan.preview.skills) {
    if (skill.status === 'new') decisions.set(skill.dir, { kind: 'write', dir: skill.dir, replacing: false });
    else if (skill.status === 'same') decisions.set(skill.dir, { kind: 'leave', skipped: false });
    else {
      const choice = choices.skills?.[skill.dir] ?? choices.collisions;
      if (choice === 'skip') decisions.set(skill.dir, { kind: 'leave', skipped: true });
      else if (choice === 'replace') decisions.set(skill.dir, { kind: 'write', dir: skill.dir, replacing: true });
      else {
        const dir = freeDir(skill.dir, taken);
        taken.add(dir);
        decisions.set(skill.dir, { kind: 'write', dir, replacing: false });
      }
    }
  }
  return decisions;
}

function skillFileOps(plan: RestorePlan, decisions: Map<string, SkillDecision>): JournalOp[] {
  const backupDirs = skillDirsOf(plan.backup.files.keys());
  const supporting: JournalOp[] = [];
  const skillMds: JournalOp[] = [];
  const deletes: JournalOp[] = [];
  for (const [path, file] of plan.backup.files) {
    const from = skillDirOf(path, backupDirs);
    const decision = from ? decisions.get(from) : undefined;
    if (!from || decision?.kind !== 'write') continue;
    const target = decision.dir + path.slice(from.length);
    (path === `${from}/SKILL.md` ? skillMds : supporting).push({ op: 'write', path: target, data: file.bytes });
  }
  for (const [dir, decision] of decisions) {
    if (decision.kind !== 'write' || !decision.replacing) continue;
    for (const path of plan.targetSkillFiles.get(dir) ?? []) if (!plan.backup.files.has(path)) deletes.push({ op: 'delete', path });
  }
  // Supporting files first and SKILL.md last: a folder without SKILL.md is not a skill yet.
  return [...deletes, ...supporting, ...skillMds];
}

async function otherFileOps(plan: RestorePlan, choices: RestoreChoices, readText: (path: string) => Promise<string | null>): Promise<JournalOp[]> {
  const ops: JournalOp[] = [];
  const backupDirs = skillDirsOf(plan.backup.files.keys());
  const statusOf = new Map<string, ItemStatus>(plan.preview.memory.map((m) => [m.path, m.status]));
  for (const [path, file] of plan.backup.files) {
    if (path.startsWith('skills/') && skillDirOf(path, backupDirs)) continue;
    const exists = plan.targetFiles.has(path);
    if (!exists) {
      ops.push({ op: 'write', path, data: file.bytes });
      continue;
    }
    if (statusOf.get(path) === 'same') continue;
    if (choices.collisions === 'replace') ops.push({ op: 'write', path, data: file.bytes });
    else if (choices.collisions === 'keep-both' && path.startsWith('memories/')) {
      // Both sets of notes: the profile's entries, then the backup's that it lacks.
      const current = parseEntries(await readText(path));
      const incoming = parseEntries(new TextDecoder().decode(file.bytes)).filter((entry) => !current.includes(entry));
      if (incoming.length > 0) ops.push({ op: 'write', path, data: joinEntries([...current, ...incoming]) });
    }
  }
  return ops;
}

function decideRecord(status: ItemStatus, choices: RestoreChoices): boolean {
  return status === 'new' || (status === 'collides' && choices.collisions === 'replace');
}

/**
 * Settings follow the collision choice, but never lose this profile's API keys to the blanks a
 * backup carries; the backup's own keys (decrypted with the passphrase) go in when given. A
 * setting holds one value, so "keep both" keeps this profile's (the preview says so).
 */
function settingsChanges(plan: RestorePlan, choices: RestoreChoices, keys: unknown): [string, unknown][] {
  const current = plan.targetTables.get('settings') ?? new Map<string, unknown>();
  const currentSecrets = extractSecrets([...current]).secrets;
  const out: [string, unknown][] = [];
  for (const [key, incoming] of plan.backup.tables.get('settings') ?? []) {
    const has = current.has(key);
    let value = !has || choices.collisions === 'replace' ? insertSecrets([[key, incoming]], currentSecrets)[0]![1] : current.get(key);
    if (keys !== undefined) value = insertSecrets([[key, value]], keys)[0]![1];
    if (has && encodeRecordValue(current.get(key)) === encodeRecordValue(value)) continue;
    out.push([key, value]);
  }
  return out;
}

function recordStatus(plan: RestorePlan, table: BackupTable, key: string, value: unknown): ItemStatus {
  const current = plan.targetTables.get(table);
  if (!current?.has(key)) return 'new';
  return encodeRecordValue(current.get(key)) === encodeRecordValue(value) ? 'same' : 'collides';
}

function sessionChanges(plan: RestorePlan, choices: RestoreChoices, newId: () => string): { changes: TableChange[]; sessions: string[] } {
  const sessions: [string, unknown][] = [];
  const messages: [string, unknown][] = [];
  const remove: string[] = [];
  const written: string[] = [];
  const bySession = new Map<string, [string, unknown][]>();
  for (const entry of plan.backup.tables.get('messages') ?? []) {
    const sessionId = String((entry[1] as { sessionId?: unknown })?.sessionId);
    bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), entry]);
  }
  const currentMessages = plan.targetTables.get('messages') ?? new Map<string, unknown>();
  for (const [id, session] of plan.backup.tables.get('sessions') ?? []) {
    const status = recordStatus(plan, 'sessions', id, session);
    if (status === 'same' || (status === 'collides' && choices.collisions === 'skip')) continue;
    const own = bySession.get(id) ?? [];
    if (status === 'collides' && choices.collisions === 'keep-both') {
      const copyId = newId();
      sessions.push([copyId, { ...(session as object), id: copyId }]);
      for (const [, message] of own) {
        const messageId = newId();
        messages.push([messageId, { ...(message as object), id: messageId, sessionId: copyId }]);
      }
      written.push(copyId);
      continue;
    }
    if (status === 'collides') {
      for (const [key, message] of currentMessages) if ((message as { sessionId?: unknown })?.sessionId === id) remove.push(key);
    }
    sessions.push([id, session]);
    messages.push(...own);
    written.push(id);
  }
  return {
    changes: [
      { table: 'messages', put: messages, remove },
      { table: 'sessions', put: sessions },
    ],
    sessions: written,
  };
}

/** A kept-both skill: the backup's folder `from` restored as `to`, named `name`. */
interface SkillCopy {
  name: string;
  from: string;
  to: string;
}

/** A path of the backup's skill folder moved into the copy's folder. */
const movedPath = (copy: SkillCopy, path: string) => (path.startsWith(`${copy.from}/`) ? copy.to + path.slice(copy.from.length) : path);

/**
 * The backup's history of a kept-both skill, made the copy's own: its ledger entries and
 * verdicts under new ids (the originals stay with this profile's skill), naming the copy and
 * its folder, with the references between them (a rollback's entry, the usage record's
 * verdict) following the new ids.
 */
function copiedHistory(plan: RestorePlan, copy: SkillCopy, original: string, newId: () => string) {
  const ids = new Map<string, string>();
  const of = (table: 'ledger' | 'verdicts') => (plan.backup.tables.get(table) ?? []).filter(([, value]) => (value as { skill?: unknown })?.skill === original);
  for (const [key] of [...of('ledger'), ...of('verdicts')]) ids.set(key, newId());
  const ledger = of('ledger').map(([key, value]): [string, unknown] => {
    const entry = value as LedgerEntry;
    const move = (versions: LedgerEntry['before']) => versions.map((version) => ({ ...version, path: movedPath(copy, version.path) }));
    const rollbackOf = entry.rollbackOf !== undefined ? { rollbackOf: ids.get(entry.rollbackOf) ?? entry.rollbackOf } : {};
    return [ids.get(key)!, { ...entry, ...rollbackOf, id: ids.get(key)!, skill: copy.name, before: move(entry.before), after: move(entry.after) }];
  });
  const verdicts = of('verdicts').map(([key, value]): [string, unknown] => [ids.get(key)!, { ...(value as object), id: ids.get(key)!, skill: copy.name }]);
  return { ledger, verdicts, ids };
}

/**
 * Records tied to a skill follow the skill: none for one the user skipped, all of them for one
 * replaced, and a kept-both copy gets all of them too, made its own (`copiedHistory`): usage,
 * ledger entries and verdicts, while the original keeps this profile's.
 */
function skillRecordChanges(
  plan: RestorePlan,
  choices: RestoreChoices,
  decisions: Map<string, SkillDecision>,
  newId: () => string,
): { changes: TableChange[]; verdictSkills: string[] } {
  const decisionByName = new Map<string, SkillDecision>();
  const copies = new Map<string, SkillCopy>();
  for (const [dir, decision] of decisions) {
    decisionByName.set(nameOf(dir), decision);
    if (decision.kind === 'write' && decision.dir !== dir) copies.set(nameOf(dir), { name: nameOf(decision.dir), from: dir, to: decision.dir });
  }
  const wanted = (table: BackupTable, skill: string, key: string, value: unknown): boolean => {
    const decision = decisionByName.get(skill);
    if (copies.has(skill) || (decision?.kind === 'leave' && decision.skipped)) return false;
    const status = recordStatus(plan, table, key, value);
    return status === 'new' || (status === 'collides' && (choices.collisions === 'replace' || (decision?.kind === 'write' && decision.replacing)));
  };
  const verdictSkills = new Set<string>();
  const bySkill = (table: 'ledger' | 'verdicts'): [string, unknown][] =>
    (plan.backup.tables.get(table) ?? []).filter(([key, value]) => {
      const skill = String((value as { skill?: unknown })?.skill);
      const keep = wanted(table, skill, key, value);
      if (keep && table === 'verdicts') verdictSkills.add(skill);
      return keep;
    });
  const usage: [string, unknown][] = [];
  const ledger = bySkill('ledger');
  const verdicts = bySkill('verdicts');
  for (const [original, copy] of copies) {
    const history = copiedHistory(plan, copy, original, newId);
    ledger.push(...history.ledger);
    verdicts.push(...history.verdicts);
    if (history.verdicts.length > 0) verdictSkills.add(copy.name);
    const record = (plan.backup.tables.get('usage') ?? []).find(([name]) => name === original)?.[1] as { verdict_id?: string | null } | undefined;
    if (record) usage.push([copy.name, { ...record, name: copy.name, verdict_id: record.verdict_id ? (history.ids.get(record.verdict_id) ?? null) : null }]);
  }
  for (const [name, record] of plan.backup.tables.get('usage') ?? []) if (wanted('usage', name, name, record)) usage.push([name, record]);
  return {
    changes: [
      { table: 'usage', put: usage },
      { table: 'ledger', put: ledger },
      { table: 'verdicts', put: verdicts },
    ],
    verdictSkills: [...verdictSkills],
  };
}

export async function restoreWrites(
  plan: RestorePlan,
  choices: RestoreChoices,
  options: { keys?: unknown; readText: (path: string) => Promise<string | null>; newId: () => string },
): Promise<RestoreWrites> {
  const decisions = decideSkills(plan, choices);
  const ops = [...(await otherFileOps(plan, choices, options.readText)), ...skillFileOps(plan, decisions)];
  const settings = settingsChanges(plan, choices, options.keys);
  const sessionPart = sessionChanges(plan, choices, options.newId);
  const skillPart = skillRecordChanges(plan, choices, decisions, options.newId);
  const plain = (table: 'blobs' | 'pending' | 'activity'): TableChange => ({
    table,
    put: (plan.backup.tables.get(table) ?? []).flatMap(([key, value]): [string, unknown][] => {
      const status = recordStatus(plan, table, key, value);
      // Blobs are content-addressed: one that is there already is the same bytes.
      if (table === 'blobs') return status === 'new' ? [[key, value]] : [];
      // Keep both: a pending write or a run of the backup beside this profile's, under a new id.
      if (status === 'collides' && choices.collisions === 'keep-both') {
        const id = options.newId();
        return [[id, { ...(value as object), id }]];
      }
      return decideRecord(status, choices) ? [[key, value]] : [];
    }),
  });
  const changes: TableChange[] = [
    { table: 'settings', put: settings } satisfies TableChange,
    ...skillPart.changes,
    plain('blobs'),
    plain('pending'),
    plain('activity'),
    ...sessionPart.changes,
    // Rebuilt from what is restored: the catalogue rescans, the session search re-indexes.
    ...DERIVED_TABLES.map((table): TableChange => ({ table, clear: true, put: [] })),
    // Only tables both sides have: the plan read the profile's (in-memory storage has no chats).
  ].filter((change) => change.clear || (plan.backup.tables.has(change.table as BackupTable) && plan.targetTables.has(change.table as BackupTable)));
  const written = [...decisions.values()].flatMap((d) => (d.kind === 'write' ? [nameOf(d.dir)] : []));
  return {
    ops,
    changes,
    skills: [...new Set(written)].sort(),
    memoryWritten: ops.some((op) => op.path.startsWith('memories/')),
    sessions: sessionPart.sessions,
    settingsKeys: settings.map(([key]) => key),
    verdictSkills: skillPart.verdictSkills,
  };
}
