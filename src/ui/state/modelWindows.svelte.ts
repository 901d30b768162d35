/**
 * Settings' view of a model's window (app/modelWindows.ts): the figure that counts, in words,
 * and the user's own figure for the Context window field. Follows changes from any context
 * (a refusal learned in the review worker, another tab's Settings).
 */
import { appServices } from '../../app/services';
import { MODEL_WINDOWS_CHANGE_KEY, type ModelWindowView } from '../../app/modelWindows';
import { providerSaved } from '../../app/modelWindowServices';
import type { SavedProvider } from '../../app/savedProviders';
import type { ModelKey } from '../../providers/modelWindow';

class ModelWindowState {
  /** The view of the model last asked for, or null while it loads. */
  view = $state<ModelWindowView | null>(null);
  #key: ModelKey | null = null;
  #listening = false;

  /** Shows what is known of the window of `key` (asking nobody). */
  async show(key: ModelKey): Promise<void> {
    this.#key = key;
    this.view = null;
    await this.#listen();
    await this.#reload();
  }

  /** Stores the user's figure for `key` when it differs from the stored one; null goes back to automatic. */
  async set(key: ModelKey, tokens: number | null): Promise<void> {
    const windows = await (await appServices()).modelWindows();
    if (((await windows.record(key)).set ?? null) === tokens) return;
    await windows.set(key, tokens);
    if (this.#key?.providerId === key.providerId && this.#key.model === key.model) await this.#reload();
  }

  /** After Settings saved `after` over `before`: a new server or chat model is asked for its window now. */
  async providerSaved(before: readonly SavedProvider[], after: readonly SavedProvider[]): Promise<void> {
    await providerSaved(await (await appServices()).modelWindows(), before, after);
  }

  async #reload(): Promise<void> {
    const key = this.#key;
    if (!key || !key.model.trim()) return;
    const windows = await (await appServices()).modelWindows();
    const view = await windows.view(key);
    if (this.#key === key) this.view = view;
  }

  async #listen(): Promise<void> {
    if (this.#listening) return;
    this.#listening = true;
    (await appServices()).changes.subscribe((change) => {
      if (change.type === 'settings-changed' && change.keys?.includes(MODEL_WINDOWS_CHANGE_KEY)) void this.#reload().catch(() => {});
    });
  }
}

export const modelWindow = new ModelWindowState();
