/**
 * The Activity view's state: every review and curator run from the `activity` store, newest
 * first, kept current from `activity-changed` events (this tab, other tabs, the worker).
 */
import { withActivity, type ActivityRecord } from '../../review/activity';
import { appServices } from '../../app/services';

class ActivityFeed {
  status = $state<'loading' | 'ready' | 'error'>('loading');
  loadError = $state<string | null>(null);
  records = $state.raw<ActivityRecord[]>([]);

  #starting: Promise<void> | null = null;

  /** Loads once and follows changes for the rest of the session. */
  start = (): Promise<void> => {
    this.#starting ??= (async () => {
      try {
        const app = await appServices();
        const log = app.activity;
        app.changes.subscribe((change) => {
          if (change.type !== 'activity-changed') return;
          void log.get(change.id).then((record) => {
            if (record) this.records = withActivity(this.records, record);
          });
        });
        const stored = await log.list();
        // Changes that arrived while the list was loading are newer than what it read.
        this.records = stored.reduce((list, record) => (list.some((r) => r.id === record.id) ? list : withActivity(list, record)), this.records);
        this.status = 'ready';
      } catch (error) {
        this.status = 'error';
        this.loadError = error instanceof Error ? error.message : String(error);
      }
    })();
    return this.#starting;
  };

  /** Undoes a memory consolidation (app/memoryConsolidationServices.ts); the error to show, or null. */
  undoConsolidation = async (id: string): Promise<string | null> => {
    try {
      const [app, { undoMemoryConsolidation }] = await Promise.all([appServices(), import('../../app/memoryConsolidationServices')]);
      const outcome = await undoMemoryConsolidation(app, id);
      return outcome.success ? null : outcome.error;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
}

export const activityFeed = new ActivityFeed();
