/**
 * SPEC §3.3 inv. 1 and 2 under real crashes (SPEC §18): a page keeps writing large
 * self-describing files (single atomic writes) and 3-file journaled groups, and is killed
 * again and again — by crashing its renderer, by closing the page, and by SIGKILL of the
 * whole browser. After every restart (boot runs recovery) each file must be one complete
 * version, each group must be at one version, and no temp file may remain.
 *
 * When each kill lands is drawn from the `seed` fixture: after how many commits of the storm.
 * The seed replays the plan, not the exact instant (the storm runs at the machine's speed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from '@playwright/test';
import { chromiumLaunch } from '../../playwright.config';
import { prng, randomBelow } from '../fixtures/seededRandom';
import { expect, test } from './fixtures';
import { browserPid, openApp, strayTempFiles } from './storageHarness';

const ITERATIONS = 24;
const SINGLE_FILES = 4;
/** A kill comes after at least 2 commits, and up to this many more (one version is 5 commits). */
const EXTRA_COMMITS = 8;

type Kill = 'renderer crash' | 'page close' | 'browser SIGKILL';
const KILLS: Kill[] = ['renderer crash', 'page close', 'browser SIGKILL'];

interface Observed {
  singles: { path: string; version: number | null; problem: string | null }[];
  group: { versions: (number | null)[]; problems: string[] };
  intents: number;
  recovered: { forward: number; back: number; swept: number; failed: number };
}

test.setTimeout(180_000);

test('files stay whole and groups stay consistent across repeated kills', async ({ baseURL, seed }) => {
  const random = prng(seed);
  const userDataDir = mkdtempSync(join(tmpdir(), 'knack-crash-'));
  const launch = () =>
    chromium.launchPersistentContext(userDataDir, { ...chromiumLaunch, headless: true, serviceWorkers: 'block', baseURL });
  let context: BrowserContext = await launch();
  const tally: Record<Kill, number> = { 'renderer crash': 0, 'page close': 0, 'browser SIGKILL': 0 };
  let settledIntents = 0;
  let sweptTemps = 0;
  let lastVersion = 0;
  let iterations = 0;

  try {
    for (let i = 0; i <= ITERATIONS; i++) {
      const page = await context.newPage();
      await openApp(page);
      const seen = await observe(page);
      settledIntents += seen.recovered.forward + seen.recovered.back;
      sweptTemps += seen.recovered.swept;

      for (const single of seen.singles) expect(single.problem, `${single.path} after ${i} kills`).toBeNull();
      expect(seen.group.problems, `journaled group after ${i} kills`).toEqual([]);
      expect(new Set(seen.group.versions).size, `group versions ${seen.group.versions} after ${i} kills`).toBe(1);
      expect(seen.intents).toBe(0);
      expect(seen.recovered.failed).toBe(0);
      expect(await strayTempFiles(page)).toEqual([]);
      const versions = [...seen.singles.map((s) => s.version ?? 0), ...seen.group.versions.map((v) => v ?? 0)];
      const newest = Math.max(...versions);
      expect(newest).toBeGreaterThanOrEqual(lastVersion); // committed versions never go back
      lastVersion = newest;
      if (i === ITERATIONS) break;

      await startStorm(page, newest + 1);
      // Kill only once writes are flowing, after a seeded number of commits: the next write is
      // then under way, at whatever point the kill reaches it.
      const commits = 2 + randomBelow(random, EXTRA_COMMITS + 1);
      await page.waitForFunction((n) => (globalThis as unknown as { stormCommits: number }).stormCommits >= n, commits);

      const kill = KILLS[i % KILLS.length]!;
      tally[kill]++;
      if (kill === 'renderer crash') {
        const cdp = await context.newCDPSession(page);
        void cdp.send('Page.crash').catch(() => undefined);
        await page.waitForEvent('crash').catch(() => undefined);
        await page.close().catch(() => undefined);
      } else if (kill === 'page close') {
        await page.close({ runBeforeUnload: false });
      } else {
        const pid = browserPid(userDataDir);
        expect(pid, 'browser process of the persistent context').not.toBeNull();
        const closed = new Promise<void>((resolve) => context.once('close', () => resolve()));
        process.kill(pid!, 'SIGKILL');
        await closed;
        context = await launch();
      }
      iterations++;
    }
  } finally {
    await context.close().catch(() => undefined);
    rmSync(userDataDir, { recursive: true, force: true });
  }

  console.log(
    `crash test: ${iterations} kills (${KILLS.map((k) => `${tally[k]} ${k}`).join(', ')}), ` +
      `newest committed version ${lastVersion}, intents settled at boot ${settledIntents}, temp files swept ${sweptTemps}`,
  );
  expect(iterations).toBe(ITERATIONS);
  expect(lastVersion).toBeGreaterThan(ITERATIONS); // the storm made progress between kills
  expect(settledIntents + sweptTemps).toBeGreaterThan(0); // kills did land mid-write
});

/** Starts, inside the page, an endless loop of writes; returns at once. */
async function startStorm(page: Page, firstVersion: number): Promise<void> {
  await page.evaluate(
    ({ firstVersion, singles }) => {
      const k = globalThis.knack!;
      const w = globalThis as unknown as { stormCommits: number };
      w.stormCommits = 0;
      const fnv = (text: string) => {
        let hash = 0x811c9dc5;
        for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
        return (hash >>> 0).toString(16);
      };
      // 200 KB – 1 MB, different per version and file, content unique to (version, file).
      const version = (v: number, file: string) => {
        const length = 200_000 + ((v * 7919 + file.length * 104_729) % 800_000);
        const unit = `${file}@${v};`;
        const body = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
        return `KNACK-CRASH v=${v} file=${file} len=${body.length} fnv=${fnv(body)}\n${body}`;
      };
      void (async () => {
        for (let v = firstVersion; ; v++) {
          for (let j = 0; j < singles; j++) {
            const path = `crash/single-${j}.txt`;
            await k.files!.write(path, version(v, path));
            w.stormCommits++;
          }
          const group = ['crash/group/references/a.md', 'crash/group/templates/b.md', 'crash/group/SKILL.md'];
          await k.journal!.run('crash-group', group.map((path) => ({ op: 'write' as const, path, data: version(v, path) })));
          w.stormCommits++;
        }
      })();
    },
    { firstVersion, singles: SINGLE_FILES },
  );
}

/** Reads every storm file back and checks it against its own header. */
async function observe(page: Page): Promise<Observed> {
  return page.evaluate(async (singles) => {
    const k = globalThis.knack!;
    const fnv = (text: string) => {
      let hash = 0x811c9dc5;
      for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
      return (hash >>> 0).toString(16);
    };
    const check = async (path: string): Promise<{ version: number | null; problem: string | null }> => {
      const text = await k.files!.readText(path);
      if (text === null) return { version: null, problem: null }; // not written yet
      const newline = text.indexOf('\n');
      const header = /^KNACK-CRASH v=(\d+) file=(\S+) len=(\d+) fnv=([0-9a-f]+)$/.exec(text.slice(0, newline));
      if (!header) return { version: null, problem: `bad header (${text.length} chars): ${JSON.stringify(text.slice(0, 60))}` };
      const body = text.slice(newline + 1);
      const [, v, file, len, sum] = header;
      if (file !== path) return { version: null, problem: `content of ${file} found in ${path}` };
      if (body.length !== Number(len)) return { version: Number(v), problem: `torn: ${body.length} of ${len} chars` };
      if (fnv(body) !== sum) return { version: Number(v), problem: 'checksum mismatch' };
      return { version: Number(v), problem: null };
    };
    const singleResults = [];
    for (let j = 0; j < singles; j++) {
      const path = `crash/single-${j}.txt`;
      singleResults.push({ path, ...(await check(path)) });
    }
    const group = await Promise.all(
      ['crash/group/references/a.md', 'crash/group/templates/b.md', 'crash/group/SKILL.md'].map(check),
    );
    const report = k.recovery!;
    return {
      singles: singleResults,
      group: { versions: group.map((g) => g.version), problems: group.flatMap((g) => (g.problem ? [g.problem] : [])) },
      intents: (await k.journal!.unfinished()).length,
      recovered: {
        forward: report.rolledForward.length,
        back: report.rolledBack.length,
        swept: report.sweptTempFiles.length,
        failed: report.failed.length,
      },
    };
  }, SINGLE_FILES);
}
