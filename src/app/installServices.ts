/**
 * Install from a link wired to this app (docs/install.md): the real hosts, the GitHub token from
 * the `install` settings key (read at each request, so a new token applies at once), and the
 * privacy counter's fetch on the page. Check for updates takes `readUpstream` from here.
 */
import type { KnackSettingsService } from './settings';
import type { InstallNetworkOptions } from '../install/installNetwork';
import { createReadUpstream, type ReadUpstream } from '../install/upstream';

export function installNetworkOptions(settings: KnackSettingsService, fetchImpl?: typeof fetch): InstallNetworkOptions {
  return {
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    githubToken: () => settings.get('install').github.apiKey,
  };
}

export function readUpstreamFor(settings: KnackSettingsService, fetchImpl?: typeof fetch): ReadUpstream {
  return createReadUpstream(installNetworkOptions(settings, fetchImpl));
}
