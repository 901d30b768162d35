/**
 * Temp files: how they are named, and how stray ones are swept after a crash.
 *
 * A temp file lives next to its final file (so publishing it is a move within one
 * directory) and is named `<final name>.<owner>.<tag>` + TEMP_SUFFIX. The owner is the id
 * of the context that wrote it (see liveness.ts); the sweep leaves alone the temp files of
 * contexts that are still alive and this context's own in-flight ones.
 */
import { type FileStore, TEMP_SUFFIX, baseName, joinPath, parentOf } from './fileStore';
import type { Liveness } from './liveness';

export function tempPathFor(finalPath: string, owner: string, tag: string): string {
  return joinPath(parentOf(finalPath), `${baseName(finalPath)}.${owner}.${tag}${TEMP_SUFFIX}`);
}

/**
 * Chromium backs an open writable with `<name>.crswap` and leaves it behind when the
 * renderer dies mid-write; since we only ever open writables on temp files, those are
 * `<temp>.crswap` and belong to the temp file's owner.
 */
const CHROMIUM_SWAP_SUFFIX = '.crswap';

/** Our temp files and Chromium's swap files of them; never real content. */
export function isTempPath(path: string): boolean {
  return path.endsWith(TEMP_SUFFIX) || path.endsWith(TEMP_SUFFIX + CHROMIUM_SWAP_SUFFIX);
}

/** The temp file a path stands for (itself, or the temp file a swap file belongs to). */
function tempFileOf(path: string): string {
  return path.endsWith(CHROMIUM_SWAP_SUFFIX) ? path.slice(0, -CHROMIUM_SWAP_SUFFIX.length) : path;
}

/** The owner id embedded in a temp file's name, or null when the name has none. */
export function tempOwner(path: string): string | null {
  if (!isTempPath(path)) return null;
  const parts = baseName(tempFileOf(path)).slice(0, -TEMP_SUFFIX.length).split('.');
  return parts.length >= 3 ? parts[parts.length - 2]! : null;
}

/** Deletes every temp file no live writer can still publish; returns the deleted paths. */
export async function sweepTempFiles(files: FileStore, liveness: Liveness, root = ''): Promise<string[]> {
  const live = await liveness.liveOwners();
  const stray = (await files.walk(root)).filter((path) => {
    if (!isTempPath(path) || liveness.isInUse(tempFileOf(path))) return false;
    const owner = tempOwner(path);
    return owner === null || owner === liveness.self || !live.has(owner);
  });
  const deleted: string[] = [];
  await Promise.all(
    stray.map(async (path) => {
      if (await files.delete(path)) deleted.push(path);
    }),
  );
  return deleted.sort();
}
