/**
 * The picked folder's handle, kept between visits (docs/sync.md, "Folder on this computer"). A
 * FileSystemDirectoryHandle survives only as a structured-clone value in IndexedDB, so it lives in
 * its own small database (`knack-sync-folder`), apart from the library's, where Backup never looks:
 * a handle means nothing on another device.
 */
import { openDB, type IDBPDatabase } from 'idb';

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
