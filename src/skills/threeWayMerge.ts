/**
 * Three-way merge of a skill's files: base (what was installed, or what two devices last agreed
 * on), mine (this browser now) and theirs (the upstream, or the other device). Used by Update
 * (src/install/update.ts) and by sync (src/sync/); the rule is written down in docs/install.md,
 * "The three-way merge".
 *
 * Per file: a side that did not change from base yields to the side that did; the same change on
 * both sides is not a conflict; text changed on both sides is merged line by line with diff3
 * (node-diff3), and only overlapping regions become conflicts. Binary files (a NUL byte or
 * invalid UTF-8) are never mixed: one side is kept whole. A file deleted on one side and edited on
 * the other is a conflict of its own. Nothing here writes anything: the caller writes the
 * decided files once every conflict has a choice (`resolveSkillMerge`).
 */
import { diff3MergeRegions, diffComm } from 'node-diff3';

export type FileSide = Uint8Array | null; // null = the file does not exist on that side
export type SkillFileSet = ReadonlyMap<string, Uint8Array>; // path relative to the skill folder → bytes

export interface TextHunkConflict {
  id: string;
  path: string;
  baseLines: string[];
  mineLines: string[];
  theirsLines: string[];
}

export interface FileConflict {
  /** Stable: the file's path (for text conflicts too; their hunks carry `${path}#${n}`). */
  id: string;
  path: string;
  kind: 'text' | 'binary' | 'delete-edit';
  base: FileSide;
  mine: FileSide;
  theirs: FileSide;
  /** Text only: the overlapping regions in order; hunk ids `${path}#${n}`, n from 1. */
  hunks: TextHunkConflict[];
}

/** `files`: every decided path (null = delete), unchanged ones included. Conflicted paths are not in it. */
export interface SkillMerge {
  files: Map<string, FileSide>;
  conflicts: FileConflict[];
}

export type ConflictChoice = { take: 'mine' } | { take: 'theirs' } | { take: 'edit'; text: string };

export type SkillSide = SkillFileSet | null; // null = the skill does not exist on that side

export type SkillMergeOutcome =
  /** Mine and theirs are the same (whether or not they differ from base): nothing to write. */
  | { kind: 'unchanged' }
  | { kind: 'take-mine' }
  | { kind: 'take-theirs' }
  /** Deleted on one side, unchanged on the other (the null side is the one that deleted). */
  | { kind: 'delete' }
  /** Deleted on one side, edited on the other: the edited skill is kept, with a notice. */
  | { kind: 'keep-edited'; editedSide: 'mine' | 'theirs' }
  /** Changed on both sides: a per-file merge, which may have conflicts. */
  | { kind: 'merged'; merge: SkillMerge };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

export function sameBytes(a: FileSide, b: FileSide): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The text of a file, or null when it is binary (a NUL byte, or bytes that are not UTF-8). */
function textOf(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Lines without their ending; a file ending in a newline yields a last empty line, so it survives the join. */
function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

/** A file with any CRLF is a CRLF file: it is written back with CRLF (docs/install.md). */
function lineEndingOf(text: string): '\r\n' | '\n' {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

type TextSegment = { ok: string[] } | { conflict: { base: string[]; mine: string[]; theirs: string[] } };

function equalLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/**
 * Splits one diff3 conflict region more finely: lines mine and theirs share are not a conflict.
 * With an empty base (a file added on both sides, or an insertion at the same place) the region
 * becomes the common runs plus the runs that differ. With a base, only the common lines at the
 * start and the end are taken out; the base stays whole in the one remaining conflict.
 */
function refineConflict(base: string[], mine: string[], theirs: string[]): TextSegment[] {
  if (base.length === 0) {
    const segments: TextSegment[] = [];
    for (const part of diffComm(mine, theirs)) {
      if (part.common) segments.push({ ok: part.common });
      else segments.push({ conflict: { base: [], mine: part.buffer1, theirs: part.buffer2 } });
    }
    return segments;
  }
  let start = 0;
  while (start < mine.length && start < theirs.length && mine[start] === theirs[start]) start++;
  let end = 0;
  while (
    end < mine.length - start &&
    end < theirs.length - start &&
    mine[mine.length - 1 - end] === theirs[theirs.length - 1 - end]
  ) end++;
  const segments: TextSegment[] = [];
  if (start > 0) segments.push({ ok: mine.slice(0, start) });
  segments.push({ conflict: { base, mine: mine.slice(start, mine.length - end), theirs: theirs.slice(start, theirs.length - end) } });
  if (end > 0) segments.push({ ok: mine.slice(mine.length - end) });
  return segments;
}

/** diff3 of three line lists into ok runs and conflicts (identical changes are ok). */
function mergeLines(base: string[], mine: string[], theirs: string[]): TextSegment[] {
  const segments: TextSegment[] = [];
  const pushOk = (lines: string[]) => {
    if (lines.length === 0) return;
    const last = segments[segments.length - 1];
    if (last && 'ok' in last) last.ok.push(...lines);
    else segments.push({ ok: [...lines] });
  };
  for (const region of diff3MergeRegions(mine, base, theirs)) {
    if (region.stable) {
      pushOk(region.bufferContent);
    } else if (equalLines(region.aContent, region.bContent)) {
      pushOk(region.aContent);
    } else if (equalLines(region.aContent, region.oContent)) {
      pushOk(region.bContent); // only theirs changed this region (diff3 may widen a region)
    } else if (equalLines(region.bContent, region.oContent)) {
      pushOk(region.aContent);
    } else {
      for (const segment of refineConflict(region.oContent, region.aContent, region.bContent)) {
        if ('ok' in segment) pushOk(segment.ok);
        else segments.push(segment);
      }
    }
  }
  return segments;
}

interface TextMerge {
  segments: TextSegment[];
  eol: '\r\n' | '\n';
}

/** The text merge of one file changed on both sides, or null when any side is binary. */
function mergeText(base: FileSide, mine: Uint8Array, theirs: Uint8Array): TextMerge | null {
  const mineText = textOf(mine);
  const theirsText = textOf(theirs);
  const baseText = base === null ? '' : textOf(base);
  if (mineText === null || theirsText === null || baseText === null) return null;
  // Compare lines without their CR; write back with mine's ending (the copy the user has here).
  const baseLines = base === null ? [] : splitLines(baseText);
  return { segments: mergeLines(baseLines, splitLines(mineText), splitLines(theirsText)), eol: lineEndingOf(mineText) };
}

function hunksOf(path: string, segments: TextSegment[]): TextHunkConflict[] {
  const hunks: TextHunkConflict[] = [];
  for (const segment of segments) {
    if ('conflict' in segment) {
      hunks.push({
        id: `${path}#${hunks.length + 1}`,
        path,
        baseLines: segment.conflict.base,
        mineLines: segment.conflict.mine,
        theirsLines: segment.conflict.theirs,
      });
    }
  }
  return hunks;
}

function joinLines(lines: string[], eol: string): Uint8Array {
  return encoder.encode(lines.join(eol));
}

/** Decides one path, or describes its conflict. */
function mergeFile(path: string, base: FileSide, mine: FileSide, theirs: FileSide): { decided: FileSide } | { conflict: FileConflict } {
  if (sameBytes(mine, theirs)) return { decided: mine };
  if (sameBytes(mine, base)) return { decided: theirs };
  if (sameBytes(theirs, base)) return { decided: mine };
  const conflict = (kind: FileConflict['kind'], hunks: TextHunkConflict[] = []): { conflict: FileConflict } => ({
    conflict: { id: path, path, kind, base, mine, theirs, hunks },
  });
  // Both changed, differently. base is not null here when one side is null (else that side equals base).
  if (mine === null || theirs === null) return conflict('delete-edit');
  const text = mergeText(base, mine, theirs);
  if (text === null) return conflict('binary');
  const hunks = hunksOf(path, text.segments);
  if (hunks.length === 0) {
    return { decided: joinLines(text.segments.flatMap((segment) => ('ok' in segment ? segment.ok : [])), text.eol) };
  }
  return conflict('text', hunks);
}

function sortedUnion(...sets: SkillFileSet[]): string[] {
  const paths = new Set<string>();
  for (const set of sets) for (const path of set.keys()) paths.add(path);
  return [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Merges three file sets of one skill, path by path (paths in code-unit order). */
export function mergeSkillFiles(base: SkillFileSet, mine: SkillFileSet, theirs: SkillFileSet): SkillMerge {
  const files = new Map<string, FileSide>();
  const conflicts: FileConflict[] = [];
  for (const path of sortedUnion(base, mine, theirs)) {
    const outcome = mergeFile(path, base.get(path) ?? null, mine.get(path) ?? null, theirs.get(path) ?? null);
    if ('conflict' in outcome) conflicts.push(outcome.conflict);
    else files.set(path, outcome.decided);
  }
  return { files, conflicts };
}

/** An edited region's lines; an empty text removes the region. */
function editedLines(text: string): string[] {
  return text === '' ? [] : splitLines(text);
}

function resolveConflict(conflict: FileConflict, choices: ReadonlyMap<string, ConflictChoice>, undecided: string[]): FileSide {
  if (conflict.kind !== 'text') {
    const choice = choices.get(conflict.id);
    if (!choice) {
      undecided.push(conflict.id);
      return null;
    }
    if (choice.take === 'mine') return conflict.mine;
    if (choice.take === 'theirs') return conflict.theirs;
    if (conflict.kind === 'binary') {
      throw new Error(`${conflict.path} is a binary file: keep mine or take theirs (it cannot be edited as text).`);
    }
    return encoder.encode(choice.text);
  }
  // Recompute the merge from the three sides the conflict carries, so a conflict that went through
  // a copy (a view state proxy, structured clone) resolves the same way.
  const text = mergeText(conflict.base, conflict.mine!, conflict.theirs!);
  if (text === null) throw new Error(`${conflict.path}: the conflict no longer matches its files; merge again.`);
  const lines: string[] = [];
  let n = 0;
  for (const segment of text.segments) {
    if ('ok' in segment) {
      lines.push(...segment.ok);
      continue;
    }
    n++;
    const id = `${conflict.path}#${n}`;
    const choice = choices.get(id);
    if (!choice) {
      undecided.push(id);
      continue;
    }
    if (choice.take === 'mine') lines.push(...segment.conflict.mine);
    else if (choice.take === 'theirs') lines.push(...segment.conflict.theirs);
    else lines.push(...editedLines(choice.text));
  }
  return joinLines(lines, text.eol);
}

/**
 * The final full file set once every conflict has a choice: text conflicts by hunk id, binary and
 * delete-edit conflicts by file id. Paths decided as deleted are left out. Throws naming every
 * conflict still undecided.
 */
export function resolveSkillMerge(merge: SkillMerge, choices: ReadonlyMap<string, ConflictChoice>): Map<string, Uint8Array> {
  const undecided: string[] = [];
  const resolved = new Map<string, FileSide>(merge.files);
  for (const conflict of merge.conflicts) resolved.set(conflict.path, resolveConflict(conflict, choices, undecided));
  if (undecided.length > 0) {
    throw new Error(`Every conflict needs a choice before the merge is applied; undecided: ${undecided.join(', ')}.`);
  }
  const result = new Map<string, Uint8Array>();
  for (const path of [...resolved.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const bytes = resolved.get(path)!;
    if (bytes !== null) result.set(path, bytes);
  }
  return result;
}

/** Whether two file sets hold the same paths with the same bytes. */
export function sameFileSet(a: SkillFileSet, b: SkillFileSet): boolean {
  if (a.size !== b.size) return false;
  for (const [path, bytes] of a) if (!sameBytes(bytes, b.get(path) ?? null)) return false;
  return true;
}

function sameSide(a: SkillSide, b: SkillSide): boolean {
  if (a === null || b === null) return a === b;
  return sameFileSet(a, b);
}

/** What to do with a whole skill given its three sides (null = the skill does not exist there). */
export function mergeSkill(base: SkillSide, mine: SkillSide, theirs: SkillSide): SkillMergeOutcome {
  if (sameSide(mine, theirs)) return { kind: 'unchanged' };
  if (sameSide(mine, base)) return theirs === null ? { kind: 'delete' } : { kind: 'take-theirs' };
  if (sameSide(theirs, base)) return mine === null ? { kind: 'delete' } : { kind: 'take-mine' };
  // Changed on both sides, differently.
  if (mine === null) return { kind: 'keep-edited', editedSide: 'theirs' };
  if (theirs === null) return { kind: 'keep-edited', editedSide: 'mine' };
  return { kind: 'merged', merge: mergeSkillFiles(base ?? new Map(), mine, theirs) };
}
