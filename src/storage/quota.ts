/**
 * Running out of storage, as the user sees it.
 *
 * Every adapter (OPFS, IndexedDB) turns a quota failure into one `StorageFullError` whose
 * message carries the storage estimate and what the user can do, so the UI shows the same
 * words wherever the write came from. Data written before the failure is left intact by the
 * adapters; this module only names and explains the failure.
 */

export interface StorageEstimateFigures {
  usage?: number;
  quota?: number;
}

export class StorageFullError extends Error {
  override readonly name = 'StorageFullError';
  readonly usage?: number;
  readonly quota?: number;

  constructor(figures: StorageEstimateFigures = {}, options?: { cause?: unknown; what?: string }) {
    super(storageFullMessage(figures, options?.what), { cause: options?.cause });
    this.usage = figures.usage;
    this.quota = figures.quota;
  }
}

/** 22 is the legacy DOMException code of QuotaExceededError. */
const QUOTA_EXCEEDED_CODE = 22;

/**
 * True when `err` means "no room left". `duringWrite` widens the test to IndexedDB's
 * `AbortError`: near the quota Chromium may abort a write transaction with a bare abort
 * instead of a QuotaExceededError, and there is no better signal to go on.
 */
export function isQuotaError(err: unknown, options: { duringWrite?: boolean } = {}): boolean {
  if (err instanceof StorageFullError) return true;
  if (typeof err !== 'object' || err === null) return false;
  const { name, code } = err as { name?: unknown; code?: unknown };
  if (name === 'QuotaExceededError' || code === QUOTA_EXCEEDED_CODE) return true;
  if (options.duringWrite && name === 'AbortError') return true;
  // idb and our own wrappers sometimes put the DOMException under `cause`.
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isQuotaError(cause, options);
}

/** Builds the StorageFullError for `cause`, reading the current estimate when it can. */
export async function toStorageFullError(cause: unknown, what?: string): Promise<StorageFullError> {
  if (cause instanceof StorageFullError) return cause;
  return new StorageFullError(await readEstimate(), { cause, what });
}

async function readEstimate(): Promise<StorageEstimateFigures> {
  try {
    const storage = (globalThis as { navigator?: Navigator }).navigator?.storage;
    if (!storage?.estimate) return {};
    const { usage, quota } = await storage.estimate();
    return { usage, quota };
  } catch {
    return {};
  }
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function storageFullMessage(figures: StorageEstimateFigures, what?: string): string {
  const { usage, quota } = figures;
  const subject = what ? `Could not save ${what}: the` : 'The';
  const figuresText =
    usage !== undefined && quota !== undefined && quota > 0
      ? ` Knack is using ${formatBytes(usage)} of the ${formatBytes(quota)} this browser allows it` +
        ` (${Math.min(100, Math.round((usage / quota) * 100))}%).`
      : '';
  return (
    `${subject} browser's storage for Knack is full.${figuresText} ` +
    'Nothing already saved was changed. To make room, free disk space on this device, ' +
    'delete old chat sessions or downloaded models you no longer use, or export a backup ' +
    '(Settings → Storage) and then remove what you do not need.'
  );
}
