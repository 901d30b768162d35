/**
 * The `install` settings key (docs/install.md, "Limits"): an optional fine-grained GitHub token.
 * It is stored only in this browser, under a property named `apiKey` so a backup leaves it out
 * unless the user includes secrets (app/backupCrypto.ts `extractSecrets`), and sent only to
 * api.github.com (installNetwork.ts).
 */
export interface InstallSettings {
  github: { apiKey: string };
}

export const DEFAULT_INSTALL_SETTINGS: InstallSettings = { github: { apiKey: '' } };

export function normalizeInstallSettings(stored: unknown): InstallSettings {
  const github = stored !== null && typeof stored === 'object' ? (stored as { github?: unknown }).github : undefined;
  const apiKey = github !== null && typeof github === 'object' ? (github as { apiKey?: unknown }).apiKey : undefined;
  return { github: { apiKey: typeof apiKey === 'string' ? apiKey.trim() : '' } };
}
