import { chat } from './chat.svelte';
import { networkRequests } from './network.svelte';
import { settings } from './settings.svelte';
import { learning } from './learning.svelte';
import { renderMarkdown, sanitizeHighlighted } from '../markdown';
import type { SandboxLimits, SandboxResult } from '../../tools/forgedSandbox';
import { syncPanel } from './sync.svelte';

/**
 * `globalThis.knackUi`: the UI's console handle, next to the storage engine's `knack`.
 * Browser tests use it to drive a reply without a model, and it lets a developer try the
 * chat from DevTools:
 *
 *   knackUi.chat.connect(async function* () { yield 'Hello'; })   // a stand-in responder
 *   knackUi.chat.isGenerating
 *   knackUi.network.byHost                                         // requests this session
 *   await knackUi.settings.save({ model: 'qwen3:4b' })             // what Settings → Save does
 *   knackUi.learning.afterTurn(report)    // the learning seam (reviews, notices, curator)
 *   knackUi.renderMarkdown('**hi**')       // the app's one Markdown sanitiser (what every view shows)
 *   await knackUi.sandbox.run('function run(i) { return i.a * 2; }', { a: 21 })   // the forged-tool sandbox
 *
 * Once the agent connects itself at start-up this stays useful for inspection only.
 */
export interface KnackUiHandle {
  chat: typeof chat;
  learning: typeof learning;
  settings: typeof settings;
  network: typeof networkRequests;
  renderMarkdown: typeof renderMarkdown;
  /** The sanitiser of highlighted code (spans with highlight classes only), for its XSS tests. */
  sanitizeHighlighted: typeof sanitizeHighlighted;
  /** The forged-tool sandbox (docs/forged-tools.md), loaded on first use: its hostile-input tests run through it. */
  /** Settings → Sync's state (docs/sync.md): `await knackUi.sync.syncNow()` resolves when that sync ended. */
  sync: typeof syncPanel;
  sandbox: {
    run(code: string, input: unknown, limits?: Partial<SandboxLimits>): Promise<SandboxResult>;
    /** Workers replaced after a hang so far. */
    replaced(): Promise<number>;
  };
}

declare global {
  var knackUi: KnackUiHandle | undefined;
}

const sandbox: KnackUiHandle['sandbox'] = {
  run: async (code, input, limits) => (await import('../../app/forgedToolRunner')).forgedToolSandbox().run(code, input, limits),
  replaced: async () => (await import('../../app/forgedToolRunner')).forgedToolSandbox().replaced,
};

export function exposeConsoleHandle(): void {
  globalThis.knackUi = { chat, learning, settings, network: networkRequests, renderMarkdown, sanitizeHighlighted, sandbox, sync: syncPanel };
}
