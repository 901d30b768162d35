/**
 * The `sync` settings record (docs/sync.md, "Settings"): which place, where in it, and the
 * token. The token is a secret: it stays in this browser, is sent only to the place's host, and
 * a backup blanks it unless the user includes secrets (app/backupCrypto.ts treats `token` as it
 * treats `apiKey`).
 */
import type { SyncPlaceKind } from './transport';

export interface SyncSettings {
  kind: SyncPlaceKind;
  /** The repository URL (git server, GitHub) or the folder's name (a folder on this computer). */
  url: string;
  branch: string;
  /** The library's folder inside the repository; '' for its root. */
  folder: string;
  token: string;
  /** Connected: syncs run on their own (after writes, on open, online, focus). */
  connected: boolean;
}

export const DEFAULT_SYNC_SETTINGS: SyncSettings = { kind: 'git', url: '', branch: 'main', folder: '', token: '', connected: false };

const KINDS: readonly SyncPlaceKind[] = ['github', 'git', 'folder'];

export function normalizeSyncSettings(stored: unknown): SyncSettings {
  const value = (stored !== null && typeof stored === 'object' ? stored : {}) as Partial<Record<keyof SyncSettings, unknown>>;
  const text = (field: unknown, fallback: string) => (typeof field === 'string' ? field : fallback);
  return {
    kind: KINDS.includes(value.kind as SyncPlaceKind) ? (value.kind as SyncPlaceKind) : DEFAULT_SYNC_SETTINGS.kind,
    url: text(value.url, '').trim(),
    branch: text(value.branch, 'main').trim() || 'main',
    folder: text(value.folder, '').trim().replace(/^\/+|\/+$/g, ''),
    token: text(value.token, ''),
    connected: value.connected === true,
  };
}

/** One place, one set of bases: another URL, branch or folder starts afresh. */
export function placeKeyOf(settings: Pick<SyncSettings, 'kind' | 'url' | 'branch' | 'folder'>): string {
  return `${settings.kind} ${settings.url} ${settings.branch} ${settings.folder}`;
}
