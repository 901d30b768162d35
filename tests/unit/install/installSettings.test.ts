/** The GitHub token's setting (docs/install.md, "Limits"): normalised, and left out of backups as a secret. */
import { describe, expect, it } from 'vitest';
import { normalizeInstallSettings } from '../../../src/install/installSettings';
import { extractSecrets, insertSecrets } from '../../../src/app/backupCrypto';

describe('install settings', () => {
  it('normalises whatever is stored to a token string', () => {
    expect(normalizeInstallSettings(undefined)).toEqual({ github: { apiKey: '' } });
    expect(normalizeInstallSettings({ github: { apiKey: '  ghp_x \n' } })).toEqual({ github: { apiKey: 'ghp_x' } });
    expect(normalizeInstallSettings({ github: { apiKey: 42 } })).toEqual({ github: { apiKey: '' } });
  });

  it('is a secret to backups: blanked in the copy, restored only from the secrets', () => {
    const settings: [string, unknown][] = [['install', { github: { apiKey: 'github_pat_secret' } }]];
    const { cleaned, secrets } = extractSecrets(settings);
    expect(JSON.stringify(cleaned)).not.toContain('github_pat_secret');
    expect(cleaned).toEqual([['install', { github: { apiKey: '' } }]]);
    expect(insertSecrets(cleaned, secrets)).toEqual(settings);
  });
});
