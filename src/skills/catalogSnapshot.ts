import type { RecordStore } from '../storage/recordStore';
import type { CatalogEntry, CatalogSnapshotStore } from './skillCatalog';

/**
 * The persisted catalogue (SPEC §7): one record per skill plus a manifest with the generation,
 * in the IndexedDB `index` store. One record per skill keeps an incremental update to two
 * small puts in one transaction instead of rewriting 10,000 entries.
 */
export const SNAPSHOT_VERSION = 1;
const MANIFEST_KEY = 'manifest';
const ENTRY_PREFIX = 'entry:';
/** A skill file change that has started and whose snapshot update has not landed yet. */
const CHANGING_PREFIX = 'changing:';

interface Manifest {
  kind: 'manifest';
  version: number;
  generation: number;
  count: number;
}

type SnapshotRecord = Manifest | { kind: 'entry'; entry: CatalogEntry } | { kind: 'changing'; since: number };

export class RecordCatalogSnapshot implements CatalogSnapshotStore {
  constructor(private readonly store: RecordStore<unknown>) {}

  async load(): Promise<{ generation: number; entries: CatalogEntry[] } | null> {
    const records = (await this.store.getAll()) as SnapshotRecord[];
    const manifest = records.find((r): r is Manifest => r?.kind === 'manifest');
    if (!manifest || manifest.version !== SNAPSHOT_VERSION) return null;
    const entries: CatalogEntry[] = [];
    for (const record of records) {
      if (record?.kind === 'entry') entries.push(record.entry);
      // Files changed (or were about to) without the snapshot following: rescan.
      else if (record?.kind === 'changing') return null;
    }
    // A count mismatch means a write was cut off between its two puts: do not trust it.
    if (entries.length !== manifest.count) return null;
    return { generation: manifest.generation, entries };
  }

  private manifestRecord(generation: number, count: number): [string, Manifest] {
    return [MANIFEST_KEY, { kind: 'manifest', version: SNAPSHOT_VERSION, generation, count }];
  }

  private count = async () => (await this.store.keys()).filter((k) => k.startsWith(ENTRY_PREFIX)).length;

  async putEntry(entry: CatalogEntry, generation: number): Promise<void> {
    const key = ENTRY_PREFIX + entry.dir;
    const existing = await this.store.get(key);
    const count = (await this.manifestCount()) + (existing ? 0 : 1);
    await this.store.putMany([[key, { kind: 'entry', entry }], this.manifestRecord(generation, count)]);
  }

  async deleteEntry(dir: string, generation: number): Promise<void> {
    const key = ENTRY_PREFIX + dir;
    if (!(await this.store.get(key))) return;
    await this.store.delete(key);
    await this.store.put(...this.manifestRecord(generation, (await this.manifestCount()) - 1));
  }

  async markChanging(keys: string[]): Promise<void> {
    const since = Date.now();
    await this.store.putMany(keys.map((key): [string, SnapshotRecord] => [CHANGING_PREFIX + key, { kind: 'changing', since }]));
  }

  async clearChanging(keys: string[]): Promise<void> {
    for (const key of keys) await this.store.delete(CHANGING_PREFIX + key);
  }

  async replaceAll(entries: CatalogEntry[], generation: number): Promise<void> {
    await this.store.clear();
    await this.store.putMany([
      ...entries.map((entry): [string, SnapshotRecord] => [ENTRY_PREFIX + entry.dir, { kind: 'entry', entry }]),
      this.manifestRecord(generation, entries.length),
    ]);
  }

  private async manifestCount(): Promise<number> {
    const manifest = (await this.store.get(MANIFEST_KEY)) as Manifest | undefined;
    return manifest?.count ?? (await this.count());
  }
}
