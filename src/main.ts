import { mount } from 'svelte';
import App from './ui/App.svelte';
import { boot } from './app/boot';
import { appServices } from './app/services';
import { networkRequests } from './ui/state/network.svelte';
import { localStorageBackend, useSettingsBackend, useSettingsService } from './ui/state/settings.svelte';

// Counting starts first; requests made before it come from the Resource Timing buffer.
networkRequests.start();

// Mount first so the chat input is usable at once; storage and the skill engine (a separate
// chunk: YAML, diff, scanner) arrive a moment later.
const app = mount(App, { target: document.getElementById('app')! });
const booted = boot();
// Settings live in IndexedDB (the settings service); if storage cannot open, the app still
// starts on localStorage.
const services = booted.then(() => appServices());
services.then(
  (services) => useSettingsService(services.settings),
  () => useSettingsBackend(localStorageBackend),
);
// The console handle (see app/boot.ts) also reaches the services; memory, sessions and the
// skill engine are lazy chunks.
void services.then(async (services) => {
  if (globalThis.knack) Object.assign(globalThis.knack, { app: services, settings: services.settings });
  const [memory, sessions] = await Promise.all([services.memory(), services.sessions()]);
  const memorySettings = {
    settings: () => services.settings.get('memory'),
    updateSettings: (change: Parameters<typeof services.settings.update<'memory'>>[1]) => services.settings.update('memory', change),
  };
  if (globalThis.knack) Object.assign(globalThis.knack, { memory: { ...memory, ...memorySettings }, sessions });
});
void services.then(async (services) => {
  const [skills, registry] = await Promise.all([services.skills(), services.tools()]);
  const settings = {
    get: () => services.settings.get('skills'),
    update: (change: Parameters<typeof services.settings.update<'skills'>>[1]) => services.settings.update('skills', change),
  };
  if (globalThis.knack) globalThis.knack.skills = { ...skills, registry, settings };
});
export default app;
