/**
 * The UI thread's activity log (the IndexedDB `activity` store), created once after storage
 * is up. The learning loop writes to it; the Activity view reads it and follows its changes.
 */
import { ActivityLog } from '../review/activityLog';
import type { ActivityRecord } from '../review/activity';

let started: Promise<ActivityLog> | null = null;

export function activityLog(): Promise<ActivityLog> {
  started ??= import('./services')
    .then(({ services }) => services)
    .then((s) => {
      const log = new ActivityLog(s.records<ActivityRecord>('activity'), s.changes);
      // Keep the store small: old runs go once per start, off the critical path.
      void log.prune().catch((error: unknown) => console.warn('[knack] pruning old activity failed', error));
      return log;
    });
  return started;
}
