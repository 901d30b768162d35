/**
 * The `install` settings key in Settings (install/installSettings.ts): the optional GitHub token
 * for Install from a link and Check for updates; this module only mirrors and saves it. Also
 * the hosts Install from a link asked this session, for Settings → Network.
 */
import { appServices } from '../../app/services';
import { installHostCounts, onInstallRequest } from '../../install/installNetwork';

class InstallSettingsState {
  token = $state('');
  loaded = $state(false);
  status = $state('');
  /** Hosts Install from a link and Check for updates asked this session, with their counts. */
  hosts = $state.raw<Array<{ host: string; count: number }>>([]);
  #listening = false;

  load = async (): Promise<void> => {
    const { settings } = await appServices();
    this.token = (await settings.read('install')).github.apiKey;
    this.loaded = true;
  };

  saveToken = async (token: string): Promise<void> => {
    const { settings } = await appServices();
    const saved = await settings.update('install', () => ({ github: { apiKey: token.trim() } }));
    this.token = saved.github.apiKey;
    this.status = saved.github.apiKey ? 'Token saved in this browser.' : 'Token cleared.';
  };

  listen = (): void => {
    const refresh = () => {
      this.hosts = [...installHostCounts()].map(([host, count]) => ({ host, count })).sort((a, b) => b.count - a.count || a.host.localeCompare(b.host));
    };
    refresh();
    if (this.#listening) return;
    this.#listening = true;
    onInstallRequest(refresh);
  };
}

export const installSettings = new InstallSettingsState();
