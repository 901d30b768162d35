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
    .then((s) => new ActivityLog(s.records<ActivityRecord>('activity'), s.changes));
  return started;
}
