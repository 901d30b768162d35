/**
 * Change events between the UI, workers and other tabs, on the BroadcastChannel
 * `knack-changes`. A writer publishes after its change is committed; listeners re-read what
 * they show (events carry names, never content, so a missed event costs only freshness).
 *
 * BroadcastChannel does not echo a message to the object that posted it, so `publish` also
 * calls this context's own subscribers.
 */

export type StorageChange =
  | { type: 'skill-changed'; name: string; dir?: string; action?: string; from?: string }
  | { type: 'skills-rescanned' }
  | { type: 'index-invalidated'; generation: number }
  | { type: 'memory-changed'; target: 'memory' | 'user' }
  | { type: 'settings-changed'; keys?: string[] }
  | { type: 'session-changed'; sessionId: string }
  | { type: 'pending-changed' }
  | { type: 'activity-changed'; id: string }
  | { type: 'verdict-changed'; name: string }
  | { type: 'storage-recovered'; rolledForward: number; rolledBack: number };

export const CHANGES_CHANNEL = 'knack-changes';

export type ChangeListener = (change: StorageChange) => void;

export class ChangeFeed {
  private readonly channel: BroadcastChannel | null;
  private readonly listeners = new Set<ChangeListener>();

  constructor(channelName: string = CHANGES_CHANNEL) {
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName) : null;
    this.channel?.addEventListener('message', (event: MessageEvent) => {
      if (isStorageChange(event.data)) this.deliver(event.data);
    });
  }

  publish(change: StorageChange): void {
    this.channel?.postMessage(change);
    queueMicrotask(() => this.deliver(change));
  }

  /** Returns the function that unsubscribes. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
    this.channel?.close();
  }

  private deliver(change: StorageChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (err) {
        console.error('[knack] change listener failed', err);
      }
    }
  }
}

function isStorageChange(value: unknown): value is StorageChange {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
