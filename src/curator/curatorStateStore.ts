import type { RecordStore } from '../storage/recordStore';
import type { CuratorState } from './curatorRules';

/**
 * Where the curator keeps its schedule (last run, run count, last summary): one record in the
 * `settings` store under its own key, so it never collides with the user's settings records.
 * `maybeRunCurator` reads and writes it under the name "curator".
 */
export const CURATOR_STATE_KEY = 'curatorState';

export function curatorStateStore(settings: RecordStore<unknown>): Pick<RecordStore<CuratorState>, 'get' | 'put'> {
  return {
    get: async () => (await settings.get(CURATOR_STATE_KEY)) as CuratorState | undefined,
    put: (_key, value) => settings.put(CURATOR_STATE_KEY, value),
  };
}
