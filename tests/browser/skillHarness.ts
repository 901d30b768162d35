/**
 * Shared pieces of the skill-engine browser tests (skills-*.spec.ts). They drive the real
 * production build: the tools through `knack.skills.registry.dispatch`, the files in OPFS and
 * the records in IndexedDB through `globalThis.knack` (src/app/boot.ts, src/main.ts).
 *
 * Page code cannot import app modules, so `installSkillProbe` defines a few helpers inside the
 * page (`globalThis.skillProbe`). A fresh catalogue is built from the live one's constructor,
 * which is how the tests compare the in-memory catalogue with a full rescan of OPFS and with
 * what the persisted snapshot would load.
 */
import { type Page, expect } from '@playwright/test';
import { openApp } from './storageHarness';

export type Origin = 'foreground' | 'review' | 'curator' | 'import' | 'user';

/** A tool result as the model sees it, parsed; `raw` is the exact string. */
export interface ToolCall {
  raw: string;
  result: Record<string, unknown> & { success: boolean };
}

/** One catalogue entry reduced to what the comparisons need. */
export interface EntryDigest {
  dir: string;
  name: string;
  category: string | null;
  description: string;
  parseError: string | null;
}

export interface StoreState {
  /** Directories under `skills/` (not the archive) that hold a SKILL.md. */
  skillDirs: string[];
  /** Directories that hold supporting files but no SKILL.md: half-deleted or half-created skills. */
  orphanDirs: string[];
  /** Every file under `skills/`, archive included. */
  files: string[];
  catalog: EntryDigest[];
  rescan: EntryDigest[];
  /** What a new session would load from the IndexedDB snapshot (null: no valid snapshot). */
  snapshot: EntryDigest[] | null;
  /** Names `skills_list` returns. */
  listed: string[];
  temps: string[];
  generation: number;
}

export interface SkillProbe {
  call(tool: string, args: unknown, origin?: Origin): Promise<ToolCall>;
  state(): Promise<StoreState>;
  sha256(path: string): Promise<string | null>;
}

declare global {
  var skillProbe: SkillProbe | undefined;
}

export const INDEX_OPTIONS = { platform: null, disabled: [] as string[], available: null, tokenBudget: 2500 };

/** Opens the app, waits for storage and the skill engine, and installs the probe. */
export async function openSkills(page: Page, url = '/'): Promise<void> {
  await openApp(page, url);
  await page.waitForFunction(() => globalThis.knack?.skills !== undefined, undefined, { timeout: 20_000 });
  await installSkillProbe(page);
}

export async function installSkillProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const SUPPORT = ['references', 'templates', 'scripts', 'assets', 'evals'];
    const knack = () => {
      const k = globalThis.knack;
      if (!k?.skills || !k.files) throw new Error('skill engine not up');
      return { k, skills: k.skills, files: k.files };
    };
    // A file's skill directory: everything before its support folder or SKILL.md.
    const skillDirOf = (path: string): string => {
      const parts = path.split('/');
      const at = parts.findIndex((part, i) => i > 1 && (SUPPORT.includes(part) || part === 'SKILL.md'));
      return parts.slice(0, at > 0 ? at : parts.length - 1).join('/');
    };
    type Entry = { dir: string; name: string; category: string | null; description: string; parseError?: string };
    const digest = (entries: Entry[]) =>
      entries
        .map((e) => ({ dir: e.dir, name: e.name, category: e.category, description: e.description, parseError: e.parseError ?? null }))
        .sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));

    globalThis.skillProbe = {
      async call(tool, args, origin = 'foreground') {
        const { skills } = knack();
        const raw = await skills.registry.dispatch(tool, args, { origin, readPaths: new Set<string>() });
        return { raw, result: JSON.parse(raw) };
      },

      async state() {
        const { skills, files } = knack();
        const all = await files.walk('skills');
        const live = all.filter((p) => !p.startsWith('skills/.archive/'));
        const skillDirs = live.filter((p) => p.endsWith('/SKILL.md')).map((p) => p.slice(0, -'/SKILL.md'.length));
        const withSkillMd = new Set(skillDirs);
        const orphanDirs = [...new Set(live.map(skillDirOf))].filter((dir) => !withSkillMd.has(dir)).sort();

        const catalog = skills.engine.catalog;
        type CatalogCtor = new (f: unknown, s: unknown) => { rescan(): Promise<void>; load(): Promise<string>; entries(): Entry[] };
        const Catalog = catalog.constructor as CatalogCtor;
        const fresh = new Catalog(files, null);
        await fresh.rescan();
        // The live catalogue's snapshot store, read the way a new session would read it.
        const snapshotStore = (catalog as unknown as { snapshot: unknown }).snapshot;
        const fromSnapshot = new Catalog(files, {
          load: () => (snapshotStore as { load(): Promise<unknown> }).load(),
          putEntry: async () => undefined,
          deleteEntry: async () => undefined,
          replaceAll: async () => undefined,
        });
        const how = await fromSnapshot.load();

        const listedResult = JSON.parse(await skills.registry.dispatch('skills_list', {}, { origin: 'foreground', readPaths: new Set() }));
        return {
          skillDirs: skillDirs.sort(),
          orphanDirs,
          files: all,
          catalog: digest(catalog.entries()),
          rescan: digest(fresh.entries()),
          snapshot: how === 'snapshot' ? digest(fromSnapshot.entries()) : null,
          listed: ((listedResult.skills ?? []) as { name: string }[]).map((s) => s.name).sort(),
          temps: (await files.walk('')).filter((p) => p.endsWith('.knack-tmp') || p.endsWith('.crswap')),
          generation: catalog.generation,
        };
      },

      async sha256(path) {
        const { files } = knack();
        const bytes = await files.read(path);
        if (!bytes) return null;
        const digestBytes = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
        return [...new Uint8Array(digestBytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
      },
    };
  });
}

/** Calls a tool in the page and returns the parsed result. */
export async function callTool(page: Page, tool: string, args: unknown, origin: Origin = 'foreground'): Promise<ToolCall> {
  return page.evaluate(({ tool, args, origin }) => globalThis.skillProbe!.call(tool, args, origin), { tool, args, origin });
}

export async function storeState(page: Page): Promise<StoreState> {
  return page.evaluate(() => globalThis.skillProbe!.state());
}

/** A valid SKILL.md (description within create's 60 characters). */
export function skillMd(name: string, description = `Use when testing ${name}.`, body = `# ${name}\n\n1. Do the thing.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;
}

/** Invariants that hold after any start: whole skills only, everything agrees, nothing left over. */
export async function expectConsistentStore(page: Page, when: string): Promise<StoreState> {
  const state = await storeState(page);
  expect(state.temps, `temp files ${when}`).toEqual([]);
  expect(state.orphanDirs, `directories without SKILL.md ${when}`).toEqual([]);
  expect(state.catalog, `catalogue vs rescan ${when}`).toEqual(state.rescan);
  expect(state.snapshot, `snapshot vs rescan ${when}`).toEqual(state.rescan);
  expect(state.listed, `skills_list ${when}`).toEqual(state.skillDirs.map((d) => d.split('/').pop()).sort());
  expect(state.rescan.filter((e) => e.parseError !== null), `unparseable SKILL.md ${when}`).toEqual([]);
  const intents = await page.evaluate(async () => (await globalThis.knack!.journal!.unfinished()).length);
  expect(intents, `unfinished intents ${when}`).toBe(0);
  return state;
}

