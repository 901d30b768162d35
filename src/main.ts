import { mount } from 'svelte';
import App from './ui/App.svelte';
import { boot } from './app/boot';

// Mount first so the chat input is usable at once; services arrive a moment later.
const app = mount(App, { target: document.getElementById('app')! });
void boot();
export default app;
