/**
 * The picked folder's handle, kept between visits (docs/sync.md, "Folder on this computer"). A
 * FileSystemDirectoryHandle survives only as a structured-clone value in IndexedDB, so it lives in
 * its own small database (`knack-sync-folder`), apart from the library's, where Backup never looks:
 * a handle means nothing on another device.
 */
import { openDB, type IDBPDatabase } from 'idb';
import { FolderTransport, folderPermission, pickSyncFolder } from './folderTransport';
import { SyncPlaceError } from './transport';

export const SYNC_FOLDER_DB = 'knack-sync-folder';
const STORE = 'handles';
const KEY = 'library';

function open(): Promise<IDBPDatabase> {
  return openDB(SYNC_FOLDER_DB, 1, {
    upgrade(db) {
      db.createObjectStore(STORE);
    },
  });
}

export async function saveSyncFolder(handle: FileSystemDirectoryHandle): Promise<void> {
  const db = await open();
  try {
    await db.put(STORE, handle, KEY);
  } finally {
    db.close();
  }
}

/** The folder chosen last time, or null. Its permission may need asking again (folderPermission). */
export async function loadSyncFolder(): Promise<FileSystemDirectoryHandle | null> {
  const db = await open();
  try {
    return ((await db.get(STORE, KEY)) as FileSystemDirectoryHandle | undefined) ?? null;
  } finally {
    db.close();
  }
}

export async function forgetSyncFolder(): Promise<void> {
  const db = await open();
  try {
    await db.delete(STORE, KEY);
  } finally {
    db.close();
  }
}

/**
 * Connect, for a folder: asks the user for one (call it from the click itself, before any other
 * await, so the picker keeps the user's gesture), remembers it, and returns its name for Settings.
 */
export async function chooseSyncFolder(): Promise<string> {
  const handle = await pickSyncFolder();
  await saveSyncFolder(handle);
  cached = null;
  return handle.name;
}

let cached: FolderTransport | null = null;

/**
 * The transport of the remembered folder. One per tab, so the ids of unchanged files are not
 * hashed again on every sync. Permission is asked again when the browser dropped it; that needs
 * a recent click (Sync now), otherwise the error says to press it.
 */
export async function savedFolderTransport(): Promise<FolderTransport> {
  const handle = await loadSyncFolder();
  if (!handle) throw new SyncPlaceError('No folder is chosen yet: choose Folder on this computer and press Connect.', 'not-found');
  if (!(await folderPermission(handle, true).catch(() => false))) {
    throw new SyncPlaceError(`Knack needs your permission to use the folder ${handle.name} again: press Sync now and allow it.`, 'auth');
  }
  if (!cached || !(await cached.sameFolder(handle))) cached = new FolderTransport(handle);
  return cached;
}
