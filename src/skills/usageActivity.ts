/** The activity fields of a usage record (usageStore.ts; structural, so the store can re-export these). */
interface Activity {
  use_count: number;
  view_count: number;
  patch_count: number;
  last_used_at: string | null;
  last_viewed_at: string | null;
  last_patched_at: string | null;
}

/** Newest of used/viewed/patched; creation does not count as activity (Hermes rule). */
export function lastActivityAt(record: Activity): string | null {
  const stamps = [record.last_used_at, record.last_viewed_at, record.last_patched_at].filter(
    (stamp): stamp is string => stamp !== null,
  );
  return stamps.length ? stamps.sort().at(-1)! : null;
}

export function activityCount(record: Activity): number {
  return record.use_count + record.view_count + record.patch_count;
}
