import { describe, expect, it } from 'vitest';
import { StorageFullError, formatBytes, isQuotaError, toStorageFullError } from '../../src/storage/quota';

describe('isQuotaError', () => {
  it('recognises the ways browsers say "no room"', () => {
    expect(isQuotaError(new DOMException('full', 'QuotaExceededError'))).toBe(true);
    expect(isQuotaError({ name: 'Whatever', code: 22 })).toBe(true);
    expect(isQuotaError(new Error('wrapped', { cause: new DOMException('x', 'QuotaExceededError') }))).toBe(true);
    expect(isQuotaError(new StorageFullError())).toBe(true);
  });

  it('counts a bare IndexedDB abort only during a write', () => {
    const abort = new DOMException('aborted', 'AbortError');
    expect(isQuotaError(abort)).toBe(false);
    expect(isQuotaError(abort, { duringWrite: true })).toBe(true);
  });

  it('ignores everything else', () => {
    expect(isQuotaError(new DOMException('busy', 'NoModificationAllowedError'))).toBe(false);
    expect(isQuotaError(new TypeError('x'))).toBe(false);
    expect(isQuotaError(null)).toBe(false);
    expect(isQuotaError('QuotaExceededError')).toBe(false);
  });
});

describe('StorageFullError', () => {
  it('says how full storage is and what to do', () => {
    const err = new StorageFullError({ usage: 9.5 * 1024 * 1024, quota: 10 * 1024 * 1024 }, { what: 'skills/x/SKILL.md' });
    expect(err.name).toBe('StorageFullError');
    expect(err.message).toContain('Could not save skills/x/SKILL.md');
    expect(err.message).toContain('9.5 MB of the 10 MB');
    expect(err.message).toContain('(95%)');
    expect(err.message).toMatch(/free disk space/);
    expect(err.message).toMatch(/delete old chat sessions or downloaded models/);
    expect(err.message).toMatch(/export a backup/);
    expect(err.message).toMatch(/Nothing already saved was changed/);
  });

  it('still explains itself without an estimate', async () => {
    const cause = new DOMException('full', 'QuotaExceededError');
    const err = await toStorageFullError(cause);
    expect(err).toBeInstanceOf(StorageFullError);
    expect(err.cause).toBe(cause);
    expect(err.message).toMatch(/^The browser's storage for Knack is full\. Nothing already saved/);
    expect(await toStorageFullError(err)).toBe(err);
  });

  it('formats sizes for people', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(300 * 1024 * 1024)).toBe('300 MB');
  });
});
