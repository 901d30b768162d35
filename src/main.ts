import { mount } from 'svelte';
import App from './ui/App.svelte';
import { boot } from './app/boot';
import { networkRequests } from './ui/state/network.svelte';
import { indexedDbSettings, localStorageBackend, useSettingsBackend } from './ui/state/settings.svelte';

// Counting starts first; requests made before it come from the Resource Timing buffer.
networkRequests.start();

// Mount first so the chat input is usable at once; storage and the skill engine (a separate
// chunk: YAML, diff, scanner) arrive a moment later.
const app = mount(App, { target: document.getElementById('app')! });
const booted = boot();
// Settings live in IndexedDB; if storage cannot open, the app still starts on localStorage.
booted.then(
  (services) => useSettingsBackend(indexedDbSettings(services.records('settings'))),
  () => useSettingsBackend(localStorageBackend),
);
// Memory and sessions are small lazy chunks too; the console handle reaches them as well.
void booted.then(async () => {
  const [{ memoryServices }, { sessionServices }] = await Promise.all([import('./app/memoryServices'), import('./app/sessionServices')]);
  const [memory, sessions] = await Promise.all([memoryServices(), sessionServices()]);
  if (globalThis.knack) Object.assign(globalThis.knack, { memory, sessions });
});
void booted.then(async () => {
  const { skillServices } = await import('./app/skillServices');
  const skills = await skillServices();
  // The console handle (see app/boot.ts) also reaches the skill engine and its tools.
  if (globalThis.knack) globalThis.knack.skills = skills;
});
export default app;
