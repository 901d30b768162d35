import type { FileStore } from '../storage/fileStore';
import { baseName, splitPath } from '../storage/fileStore';
import { readSkillMeta, type SkillConditions } from './skillDocument';
import { CancelledError, throttledProgress, throwIfCancelled, type LongTaskOptions } from '../storage/progress';

/**
 * The in-memory catalogue of every skill in `skills/`: where it lives and what its frontmatter
 * says. Tools look skills up here instead of walking OPFS (statting 10,000 skills costs
 * seconds), and the skill index is rendered from it. It is write-through: every committed write
 * calls `upsert`/`remove`, which also updates the persisted snapshot.
 */
export const SKILLS_ROOT = 'skills';
export const ARCHIVE_DIR = 'skills/.archive';
export const SUPPORT_DIRS = ['references', 'templates', 'scripts', 'assets', 'evals', 'tools'] as const;

/** Directory names never searched for skills (dot-dirs such as `.archive` are skipped too). */
const EXCLUDED_DIRS = new Set(['node_modules', '__pycache__', 'venv', 'site-packages']);

export interface CatalogEntry {
  /** `skills/<category>/<name>` or `skills/<name>`. */
  dir: string;
  /** Directory name: how skills are identified. */
  name: string;
  /** Path between `skills/` and the skill directory, or null when the skill sits at the top. */
  category: string | null;
  frontmatterName: string;
  description: string;
  tags: string[];
  platforms: string[];
  conditions: SkillConditions;
  /** Set when SKILL.md could not be parsed; the skill still shows, with an empty description. */
  parseError?: string;
}

/**
 * What changed in the catalogue: `replaced` is the entry the directory had before (absent for
 * a new directory); `reset` replaced everything (a load or a rescan).
 */
export type CatalogChange =
  | { kind: 'reset' }
  | { kind: 'upsert'; entry: CatalogEntry; replaced?: CatalogEntry }
  | { kind: 'remove'; entry: CatalogEntry; replaced: CatalogEntry };

/** What a snapshot was like when a rescan started (RecordCatalogSnapshot.beginRescan). */
export interface RescanStart {
  /** The snapshot's count of entry writes then, null without a snapshot. */
  writes: number | null;
  at: number;
}

export interface CatalogSnapshotStore {
  /** null when there is no snapshot to trust (none, torn, or a change marker left behind). */
  load(): Promise<{ generation: number; entries: CatalogEntry[] } | null>;
  /** `clearChanging`: change markers to clear in the same step (see `clearChanging`). */
  putEntry(entry: CatalogEntry, generation: number, clearChanging?: string[]): Promise<void>;
  /** Several entries and markers in one step (a batched import); without it, one putEntry each. */
  putEntries?(entries: readonly CatalogEntry[], generation: number, clearChanging?: string[]): Promise<void>;
  deleteEntry(dir: string, generation: number, clearChanging?: string[]): Promise<void>;
  /**
   * Replaces the entries with a rescan's. With `start` (from `beginRescan`, taken before the
   * scan read any folder), change markers set since the scan started are kept, and an entry
   * written while it scanned makes the next load rescan instead of trusting this one.
   */
  replaceAll(entries: CatalogEntry[], generation: number, start?: RescanStart | null): Promise<void>;
  beginRescan?(): Promise<RescanStart>;
  /** Category descriptions kept beside the entries (replaceAll clears them). */
  loadCategoryDescriptions?(): Promise<Map<string, string> | null>;
  putCategoryDescriptions?(descriptions: Map<string, string>): Promise<void>;
  /** Records that files under these skill directories are about to change. */
  markChanging?(keys: string[]): Promise<void>;
  /** The change recorded under these keys is reflected in the snapshot. */
  clearChanging?(keys: string[]): Promise<void>;
}

/** No empty or `.` segments: `splitPath` would keep every segment as it is. */
function isNormalPath(path: string): boolean {
  return (
    !path.startsWith('/') &&
    !path.endsWith('/') &&
    !path.includes('//') &&
    path !== '.' &&
    !path.startsWith('./') &&
    !path.endsWith('/.') &&
    !path.includes('/./')
  );
}

/** A skill's name and category, which its directory decides. */
export function skillPlace(dir: string): { name: string; category: string | null } {
  // Catalogue directories are normal paths: cut at the first and last slash instead of
  // splitting and re-joining, which a session start does for every one of 10,000 entries.
  if (isNormalPath(dir)) {
    const first = dir.indexOf('/');
    if (first < 0) return { name: '', category: null };
    const last = dir.lastIndexOf('/');
    return { name: dir.slice(last + 1), category: last > first ? dir.slice(first + 1, last) : null };
  }
  const parts = splitPath(dir).slice(1);
  const name = parts[parts.length - 1] ?? '';
  const category = parts.length > 1 ? parts.slice(0, -1).join('/') : null;
  return { name, category };
}

export function entryFromSkillMd(dir: string, text: string): CatalogEntry {
  const { name, category } = skillPlace(dir);
  const meta = readSkillMeta(text);
  return {
    dir,
    name,
    category,
    frontmatterName: meta.name ?? name,
    description: meta.description ?? '',
    tags: meta.tags,
    platforms: meta.platforms,
    conditions: meta.conditions,
    ...(meta.error ? { parseError: meta.error } : {}),
  };
}

function isSearchableDir(name: string): boolean {
  return !name.startsWith('.') && !EXCLUDED_DIRS.has(name);
}

/** OPFS calls in flight during a scan (sequential reads are ~3× slower than parallel ones). */
const SCAN_PARALLELISM = 64;

/** Runs `task` over `items` with at most `limit` in flight; parallel OPFS reads are ~3× faster. */
async function mapBounded<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  });
  await Promise.all(workers);
  return results;
}

/** Finds every skill directory under `skills/` by listing directories level by level. */
export async function scanSkillDirs(files: FileStore, root = SKILLS_ROOT): Promise<string[]> {
  return (await scanSkills(files, root)).map(({ dir }) => dir);
}

/** Folders of a skill that hold its own files, never nested skills (a SKILL.md under `references/` is a file). */
const SKILL_FILE_DIRS = new Set<string>(SUPPORT_DIRS);

/** A category folder's description file (frontmatter `description`, or its first paragraph). */
export const CATEGORY_DESCRIPTION_FILE = 'DESCRIPTION.md';

export interface LibraryScan {
  skills: { dir: string; text: string }[];
  /** Category (path between `skills/` and the folder) → description, from `DESCRIPTION.md`. */
  categoryDescriptions: Map<string, string>;
}

/**
 * Every skill under `skills/` with the text of its SKILL.md, level by level. Each directory's
 * SKILL.md is read first; a folder with one is a skill, and its folders other than its support
 * folders are searched for nested skills (`parent/child/SKILL.md`). A folder without one is a
 * category: its `DESCRIPTION.md` is read and its folders searched.
 */
export async function scanSkills(files: FileStore, root = SKILLS_ROOT): Promise<{ dir: string; text: string }[]> {
  return (await scanLibrary(files, root)).skills;
}

/**
 * The scan itself: a pool of at most `SCAN_PARALLELISM` directory visits in flight, each
 * listing its folder and then reading only the files the listing shows (SKILL.md, or a
 * category's DESCRIPTION.md), so no read misses and no level waits for its slowest folder.
 * Progress counts folders visited of folders found so far; a cancel takes effect before the
 * next folder is visited, with nothing changed (docs/storage.md "Rescan").
 */
export async function scanLibrary(
  files: FileStore,
  root = SKILLS_ROOT,
  options: LongTaskOptions & { onSkill?: (dir: string, text: string) => void } = {},
): Promise<LibraryScan> {
  const found: { dir: string; text: string }[] = [];
  const categoryDescriptions = new Map<string, string>();
  const report = throttledProgress(options.onProgress);
  const queue = [root];
  let visited = 0;
  let discovered = 1;
  const visit = async (dir: string) => {
    // One call lists the folder and reads its SKILL.md / DESCRIPTION.md through the listing's
    // handles where the store can (OPFS); otherwise a read per file that the listing shows.
    const wanted = dir === root ? [] : ['SKILL.md', CATEGORY_DESCRIPTION_FILE];
    const listed = files.listAndRead ? await files.listAndRead(dir, wanted) : { entries: await files.list(dir), texts: null };
    const entries = listed.entries;
    const has = (name: string) => entries.some((e) => e.kind === 'file' && e.name === name);
    const readListed = async (name: string) => (listed.texts ? (listed.texts.get(name) ?? null) : files.readText(`${dir}/${name}`));
    const text = dir !== root && has('SKILL.md') ? await readListed('SKILL.md') : null;
    if (text !== null) {
      found.push({ dir, text });
      // Parsing here, while the other visits wait on OPFS, overlaps the CPU with the reads.
      options.onSkill?.(dir, text);
    } else if (dir !== root && has(CATEGORY_DESCRIPTION_FILE)) {
      const description = await readListed(CATEGORY_DESCRIPTION_FILE);
      const shown = description === null ? '' : categoryDescriptionOf(description);
      if (shown) categoryDescriptions.set(dir.slice(root.length + 1), shown);
    }
    for (const entry of entries) {
      if (entry.kind !== 'directory' || !isSearchableDir(entry.name)) continue;
      if (text !== null && SKILL_FILE_DIRS.has(entry.name)) continue;
      queue.push(`${dir}/${entry.name}`);
      discovered += 1;
    }
    visited += 1;
    report({ phase: 'Reading skills', done: visited, total: discovered, item: dir });
  };
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let failed = false;
    const pump = () => {
      if (failed) return;
      if (options.signal?.aborted && active === 0) {
        failed = true;
        reject(new CancelledError('The rescan'));
        return;
      }
      while (!options.signal?.aborted && active < SCAN_PARALLELISM && queue.length) {
        active += 1;
        visit(queue.pop()!).then(
          () => {
            active -= 1;
            if (active === 0 && queue.length === 0 && !options.signal?.aborted) resolve();
            else pump();
          },
          (error: unknown) => {
            failed = true;
            reject(error);
          },
        );
      }
    };
    pump();
  });
  found.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  return { skills: found, categoryDescriptions };
}

/** The description a `DESCRIPTION.md` gives: frontmatter `description`, else its first paragraph. */
export function categoryDescriptionOf(text: string): string {
  const description = readSkillMeta(text).description;
  if (description) return description.trim();
  const body = text.replace(/^---\n[\s\S]*?\n---[^\n]*\n?/, '');
  const paragraph = body
    .split(/\n\s*\n/)
    .map((part) => part.replace(/^#+\s.*$/gm, '').trim())
    .find((part) => part.length > 0);
  return (paragraph ?? '').replace(/\s+/g, ' ');
}

export class SkillCatalog {
  private byDir = new Map<string, CatalogEntry>();
  private listeners = new Set<(change: CatalogChange) => void>();
  /** From the last rescan; null after a snapshot load until `loadCategoryDescriptions`. */
  private descriptions: Map<string, string> | null = null;
  /** Change markers this context wrote and has not cleared yet, by skill directory. */
  private changing = new Map<string, string[]>();
  generation = 0;

  constructor(
    private readonly files: FileStore,
    private readonly snapshot: CatalogSnapshotStore | null = null,
  ) {}

  /** Loads from the snapshot; falls back to a full rescan when there is none. */
  async load(options: { forceRescan?: boolean } = {}): Promise<'snapshot' | 'rescan'> {
    if (!options.forceRescan && this.snapshot) {
      const stored = await this.snapshot.load();
      if (stored) {
        // A loop rather than `new Map(entries.map(…))`: no 10,000 throwaway pairs at start-up.
        const byDir = new Map<string, CatalogEntry>();
        for (const entry of stored.entries) byDir.set(entry.dir, entry);
        this.byDir = byDir;
        this.generation = stored.generation;
        this.descriptions = (await this.snapshot.loadCategoryDescriptions?.()) ?? null;
        this.emit({ kind: 'reset' });
        return 'snapshot';
      }
    }
    await this.rescan();
    return 'rescan';
  }

  /**
   * Reads every SKILL.md in parallel and replaces the catalogue and the snapshot. Cancelling
   * (`options.signal`) stops it before anything is replaced: the catalogue stays as it was.
   */
  async rescan(options: LongTaskOptions = {}): Promise<void> {
    const parsed = new Map<string, CatalogEntry>();
    const start = (await this.snapshot?.beginRescan?.()) ?? null;
    const scan = await scanLibrary(this.files, SKILLS_ROOT, { ...options, onSkill: (dir, text) => parsed.set(dir, entryFromSkillMd(dir, text)) });
    throwIfCancelled(options.signal, 'The rescan');
    options.onProgress?.({ phase: 'Saving the skill index', done: scan.skills.length, total: scan.skills.length });
    const entries = scan.skills.map(({ dir }) => parsed.get(dir)!);
    this.descriptions = scan.categoryDescriptions;
    this.byDir = new Map(entries.map((entry) => [entry.dir, entry]));
    this.generation += 1;
    await this.snapshot?.replaceAll(entries, this.generation, start);
    await this.snapshot?.putCategoryDescriptions?.(scan.categoryDescriptions);
    this.changing.clear();
    this.emit({ kind: 'reset' });
  }

  /**
   * Call before changing files of skills in `dirs`. The files and the snapshot cannot change
   * in one step, and a tab can die between the two (or while recovery's rescan runs, after
   * the journal intent is already gone): the marker left behind makes the next `load()`
   * rescan instead of trusting a snapshot that no longer matches the files. `upsert` and
   * `remove` of the directory clear it. Archive paths are not catalogued and get none.
   */
  async beginChange(dirs: Iterable<string>): Promise<void> {
    if (!this.snapshot?.markChanging) return;
    const keys: string[] = [];
    for (const dir of new Set(dirs)) {
      if (!dir.startsWith(`${SKILLS_ROOT}/`) || dir.startsWith(`${ARCHIVE_DIR}/`) || dir === ARCHIVE_DIR) continue;
      const key = `${dir}#${crypto.randomUUID()}`;
      keys.push(key);
      this.changing.set(dir, [...(this.changing.get(dir) ?? []), key]);
    }
    if (keys.length) await this.snapshot.markChanging(keys);
  }

  private async endChange(dir: string): Promise<void> {
    const keys = this.changing.get(dir);
    if (!keys) return;
    this.changing.delete(dir);
    await this.snapshot?.clearChanging?.(keys);
  }

  /**
   * Category descriptions (`skills/<category>/DESCRIPTION.md`), kept in the snapshot beside the
   * entries. When the snapshot has none (an older one) or they were forgotten after a write of a
   * `DESCRIPTION.md`, they are read here once: one small file per category folder.
   */
  async categoryDescriptions(): Promise<Map<string, string>> {
    if (this.descriptions) return this.descriptions;
    const categories = new Set<string>();
    for (const entry of this.byDir.values()) {
      // Every folder between `skills/` and the skill can be a category with a description.
      let category = entry.category;
      while (category) {
        categories.add(category);
        const cut = category.lastIndexOf('/');
        category = cut < 0 ? null : category.slice(0, cut);
      }
    }
    const descriptions = new Map<string, string>();
    await mapBounded([...categories], SCAN_PARALLELISM, async (category) => {
      const text = await this.files.readText(`${SKILLS_ROOT}/${category}/${CATEGORY_DESCRIPTION_FILE}`);
      const shown = text === null ? '' : categoryDescriptionOf(text);
      if (shown) descriptions.set(category, shown);
    });
    this.descriptions = descriptions;
    await this.snapshot?.putCategoryDescriptions?.(descriptions);
    return descriptions;
  }

  /** A `DESCRIPTION.md` was written or removed: read the descriptions again when next needed. */
  forgetCategoryDescriptions(): void {
    this.descriptions = null;
    this.generation += 1;
    this.emit({ kind: 'reset' });
  }

  entries(): CatalogEntry[] {
    return [...this.byDir.values()];
  }

  get size(): number {
    return this.byDir.size;
  }

  byDirectory(dir: string): CatalogEntry | undefined {
    return this.byDir.get(dir);
  }

  /** Skills whose directory name is `name` (Hermes looks skills up by directory name). */
  findByName(name: string): CatalogEntry[] {
    const matches: CatalogEntry[] = [];
    for (const entry of this.byDir.values()) if (entry.name === name) matches.push(entry);
    return matches;
  }

  /** Directory-name matches, else frontmatter-name matches, else a `category/name` path. */
  resolve(name: string): CatalogEntry[] {
    const byDirName = this.findByName(name);
    const byFrontmatter = this.entries().filter((e) => e.frontmatterName === name && e.name !== name);
    const byPath = name.includes('/') ? [this.byDir.get(`${SKILLS_ROOT}/${name}`)].filter((e): e is CatalogEntry => !!e) : [];
    const seen = new Map<string, CatalogEntry>();
    for (const entry of [...byPath, ...byDirName, ...byFrontmatter]) seen.set(entry.dir, entry);
    if (byPath.length) return byPath;
    return [...seen.values()];
  }

  /** Write-through after a committed write of `dir/SKILL.md`. */
  async upsert(dir: string, skillMdText: string): Promise<CatalogEntry> {
    const entry = entryFromSkillMd(dir, skillMdText);
    const replaced = this.byDir.get(dir);
    this.byDir.set(dir, entry);
    this.generation += 1;
    // The directory's markers go in the same step as its entry: one transaction, not two.
    const markers = this.changing.get(dir);
    await this.snapshot?.putEntry(entry, this.generation, markers);
    if (this.changing.get(dir) === markers) this.changing.delete(dir);
    this.emit({ kind: 'upsert', entry, replaced });
    return entry;
  }

  /**
   * `upsert` for several skills (a batched import): one snapshot transaction for all of them
   * and their change markers, then one catalogue change per skill.
   */
  async upsertMany(items: ReadonlyArray<{ dir: string; text: string }>): Promise<CatalogEntry[]> {
    if (!this.snapshot?.putEntries) {
      const upserted: CatalogEntry[] = [];
      for (const item of items) upserted.push(await this.upsert(item.dir, item.text));
      return upserted;
    }
    const changes = items.map(({ dir, text }) => ({ entry: entryFromSkillMd(dir, text), replaced: this.byDir.get(dir), markers: this.changing.get(dir) }));
    for (const { entry } of changes) this.byDir.set(entry.dir, entry);
    this.generation += 1;
    await this.snapshot.putEntries(
      changes.map(({ entry }) => entry),
      this.generation,
      changes.flatMap(({ markers }) => markers ?? []),
    );
    for (const { entry, markers, replaced } of changes) {
      if (this.changing.get(entry.dir) === markers) this.changing.delete(entry.dir);
      this.emit({ kind: 'upsert', entry, replaced });
    }
    return changes.map(({ entry }) => entry);
  }

  /**
   * Another context (tab, worker) committed a change to `dir` and already updated the
   * snapshot: re-read SKILL.md and update this context's copy only.
   */
  async refresh(dir: string): Promise<void> {
    const text = await this.files.readText(`${dir}/SKILL.md`);
    const replaced = this.byDir.get(dir);
    this.generation += 1;
    if (text === null) {
      this.byDir.delete(dir);
      this.emit(replaced ? { kind: 'remove', entry: replaced, replaced } : { kind: 'reset' });
    } else {
      const entry = entryFromSkillMd(dir, text);
      this.byDir.set(dir, entry);
      this.emit({ kind: 'upsert', entry, replaced });
    }
  }

  async remove(dir: string): Promise<void> {
    const replaced = this.byDir.get(dir);
    if (!replaced || !this.byDir.delete(dir)) {
      await this.endChange(dir);
      return;
    }
    this.generation += 1;
    const markers = this.changing.get(dir);
    await this.snapshot?.deleteEntry(dir, this.generation, markers);
    if (this.changing.get(dir) === markers) this.changing.delete(dir);
    this.emit({ kind: 'remove', entry: replaced, replaced });
  }

  /** Called on every change (the skill index drops its rendered cache). */
  onChange(listener: (change: CatalogChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: CatalogChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

export function skillNameOf(dir: string): string {
  return baseName(dir);
}
