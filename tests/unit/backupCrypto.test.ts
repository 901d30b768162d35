import { describe, expect, it } from 'vitest';
import { WrongPassphraseError, decryptSecrets, encryptSecrets, extractSecrets, insertSecrets, isEncryptedSecrets } from '../../src/app/backupCrypto';

describe('backup keys section', () => {
  it('encrypts with a passphrase and opens only with the same one', async () => {
    const envelope = await encryptSecrets({ app: { apiKey: 'sk-1' } }, 'pass phrase', 1000);
    expect(isEncryptedSecrets(envelope)).toBe(true);
    expect(JSON.stringify(envelope)).not.toContain('sk-1');
    expect(await decryptSecrets(envelope, 'pass phrase')).toEqual({ app: { apiKey: 'sk-1' } });
    await expect(decryptSecrets(envelope, 'pass phrase!')).rejects.toBeInstanceOf(WrongPassphraseError);
  });

  it('refuses an empty passphrase', async () => {
    await expect(encryptSecrets({}, '')).rejects.toThrow(/Type a passphrase/);
  });

  it('blanks every apiKey in settings records and puts them back', () => {
    const settings: [string, unknown][] = [
      ['app', { apiKey: 'sk-app', model: 'm', review: { apiKey: 'sk-review' } }],
      ['gate', { policy: 'x', apiKey: '' }],
    ];
    const { cleaned, secrets } = extractSecrets(settings);
    expect(JSON.stringify(cleaned)).not.toContain('sk-');
    expect(secrets).toEqual({ app: { apiKey: 'sk-app', 'review/apiKey': 'sk-review' } });
    expect(insertSecrets(cleaned, secrets)).toEqual(settings);
    expect(settings[0]![1]).toMatchObject({ apiKey: 'sk-app' }); // the input is not changed
  });

  it('treats the sync token as a secret too (docs/sync.md)', () => {
    const settings: [string, unknown][] = [['sync', { kind: 'git', url: 'https://git.example/me/skills.git', token: 'gt-secret', connected: true }]];
    const { cleaned, secrets } = extractSecrets(settings);
    expect(JSON.stringify(cleaned)).not.toContain('gt-secret');
    expect(secrets).toEqual({ sync: { token: 'gt-secret' } });
    expect(insertSecrets(cleaned, secrets)).toEqual(settings);
  });
});
