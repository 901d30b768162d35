/**
 * An in-memory sync place for the sync core's unit tests: a head that changes with every commit,
 * a compare-and-swap commit (RemoteMovedError when the head moved), and a count of requests.
 * `beforeCommit` lets a test move the place between a device's read and its commit (a race).
 */
import { RemoteMovedError, type RemoteChange, type RemoteTree, type SyncPlaceKind, type SyncTransport } from '../../../src/sync/transport';

export class MemoryPlace {
  head: string | null = null;
  files = new Map<string, { bytes: Uint8Array; mode: number }>();
  requests = 0;
  commits = 0;
  #serial = 0;
  beforeCommit: (() => Promise<void> | void) | null = null;

  transport(kind: SyncPlaceKind = 'git'): SyncTransport {
    const place = this;
    const idOf = (bytes: Uint8Array) => {
      let hash = 2166136261;
      for (const byte of bytes) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
      return `${bytes.length}-${hash.toString(16)}`;
    };
    return {
      kind,
      async readHead() {
        place.requests++;
        return place.head;
      },
      async readTree(head: string): Promise<RemoteTree> {
        place.requests++;
        if (head !== place.head) throw new RemoteMovedError(place.head);
        return { head, entries: new Map([...place.files].map(([path, file]) => [path, { id: idOf(file.bytes), mode: kind === 'folder' ? 0o644 : file.mode }])) };
      },
      async readFiles(head: string, paths: readonly string[]) {
        place.requests++;
        if (head !== place.head) throw new RemoteMovedError(place.head);
        return new Map(paths.map((path) => [path, place.files.get(path)!.bytes]));
      },
      async commit(change: RemoteChange) {
        place.requests++;
        await place.beforeCommit?.();
        if (change.expectedHead !== place.head) throw new RemoteMovedError(place.head);
        for (const path of change.deletes) place.files.delete(path);
        for (const [path, file] of change.writes) place.files.set(path, { bytes: file.bytes, mode: file.mode });
        place.head = `c${++place.#serial}`;
        place.commits++;
        return place.head;
      },
    };
  }

  text(path: string): string | undefined {
    const file = this.files.get(path);
    return file ? new TextDecoder().decode(file.bytes) : undefined;
  }

  /** Another device (or tool) writes straight into the place. */
  write(path: string, text: string, mode = 0o644): void {
    this.files.set(path, { bytes: new TextEncoder().encode(text), mode });
    this.head = `c${++this.#serial}`;
  }
}
