/**
 * SPEC §3.3 inv. 2 and §18 for skills: a multi-file skill operation killed part-way leaves
 * the skill wholly present or wholly gone after the next start, never a directory of
 * supporting files without SKILL.md; the catalogue, its snapshot and `skills_list` agree
 * with the files; no temp file or intent is left.
 *
 * Two ways of killing: the journal's `failAfterStep` hook at every durable action of a
 * foreground delete (6 journaled deletes) and of a review archive (6 copies + 6 deletes),
 * followed by a reload; and real kills (renderer crash, browser SIGKILL) of a persistent
 * profile during a storm of creates, deletes, archives and patches. When each real kill lands
 * (after how many storm operations) is drawn from the `seed` fixture.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from '@playwright/test';
import { chromiumLaunch } from '../../playwright.config';
import { prng, randomBelow } from '../fixtures/seededRandom';
import { expect, test } from './fixtures';
import { browserPid } from './storageHarness';
import { type StoreState, callTool, expectConsistentStore, openSkills, skillMd } from './skillHarness';

const SUPPORT_FILES: Record<string, string> = {
  'references/api.md': '# API\n\nGET /health\n',
  'references/errors.md': '# Errors\n\n503 means retry.\n',
  'templates/report.md': '## Report for {date}\n',
  'scripts/check.sh': '#!/bin/sh\necho ok\n',
  'assets/logo.txt': 'LOGO\n',
};
const SKILL_FILES = ['SKILL.md', ...Object.keys(SUPPORT_FILES)].sort();

/** Creates a skill with five supporting files through the tools. */
async function createFullSkill(page: Page, name: string, origin: 'foreground' | 'review'): Promise<void> {
  const created = await callTool(page, 'skill_manage', { action: 'create', name, content: skillMd(name) }, origin);
  expect(created.result, created.raw).toMatchObject({ success: true });
  for (const [file_path, file_content] of Object.entries(SUPPORT_FILES)) {
    const written = await callTool(page, 'skill_manage', { action: 'write_file', name, file_path, file_content }, origin);
    expect(written.result, written.raw).toMatchObject({ success: true });
  }
}

/** Makes the next journaled operation stop as if the page died after `step` durable actions. */
async function crashNextJournalRun(page: Page, step: number): Promise<void> {
  await page.evaluate((step) => {
    const journal = globalThis.knack!.journal!;
    const original = journal.run;
    journal.run = function (kind, ops, options = {}) {
      journal.run = original;
      return original.call(journal, kind, ops, { ...options, failAfterStep: step });
    };
  }, step);
}

/** The relative paths of the files in a directory. */
function filesIn(state: StoreState, dir: string): string[] {
  return state.files.filter((p) => p.startsWith(`${dir}/`)).map((p) => p.slice(dir.length + 1)).sort();
}

test('a foreground delete and a review archive stopped at every durable step recover whole', async ({ page }) => {
  test.setTimeout(150_000);
  await openSkills(page);
  const umbrella = await callTool(page, 'skill_manage', { action: 'create', name: 'umbrella', content: skillMd('umbrella') });
  expect(umbrella.result).toMatchObject({ success: true });

  const scenarios = [
    { kind: 'delete', origin: 'foreground' as const, args: {} },
    { kind: 'archive', origin: 'review' as const, args: { absorbed_into: 'umbrella' } },
  ];
  const tally: Record<string, { present: number; gone: number; ledgerMissing: number; usageStale: number }> = {};
  for (const scenario of scenarios) {
    const outcomes: ('present' | 'gone')[] = [];
    tally[scenario.kind] = { present: 0, gone: 0, ledgerMissing: 0, usageStale: 0 };
    for (let step = 0; ; step++) {
      const name = `${scenario.kind}-at-${step}`;
      const dir = `skills/${name}`;
      const archived = `skills/.archive/${name}`;
      await createFullSkill(page, name, scenario.origin);
      await crashNextJournalRun(page, step);
      const removal = await callTool(page, 'skill_manage', { action: 'delete', name, ...scenario.args }, scenario.origin);
      if (removal.result.success) {
        // Past the last durable action: the operation completed; nothing more to stop.
        break;
      }
      expect(removal.result.error, removal.raw).toContain('simulated crash');

      await openSkills(page); // a new document: the stopped one is gone, boot recovers
      const when = `after ${scenario.kind} stopped at step ${step}`;
      const state = await expectConsistentStore(page, when);
      const left = filesIn(state, dir);
      const inArchive = filesIn(state, archived);
      let outcome: 'present' | 'gone';
      if (left.length > 0) {
        outcome = 'present';
        expect(left, `${when}: skill files`).toEqual(SKILL_FILES);
        expect(inArchive, `${when}: archive beside a present skill`).toEqual([]);
        expect(state.listed).toContain(name);
        const viewed = await callTool(page, 'skill_view', { name });
        expect(viewed.result.success, `${when}: view`).toBe(true);
      } else {
        outcome = 'gone';
        expect(inArchive, `${when}: archive`).toEqual(scenario.kind === 'archive' ? SKILL_FILES : []);
        expect(state.listed).not.toContain(name);
        // The ledger entry and usage change travel in the journal intent: a change that
        // recovery completed is recorded exactly like one that finished normally.
        const records = await page.evaluate(async (name) => {
          const k = globalThis.knack!;
          const ledger = (await k.records!<{ action: string; skill: string }>('ledger').getAll()).filter((e) => e.skill === name);
          const usage = await k.records!<{ state: string }>('usage').get(name);
          return { removalLogged: ledger.some((e) => e.action === 'delete' || e.action === 'archive'), usageState: usage?.state ?? null };
        }, name);
        if (!records.removalLogged) tally[scenario.kind]!.ledgerMissing++;
        if (records.usageState !== (scenario.kind === 'archive' ? 'archived' : null)) tally[scenario.kind]!.usageStale++;
        expect(records.removalLogged, `${when}: ledger records the ${scenario.kind}`).toBe(true);
        expect(records.usageState, `${when}: usage state`).toBe(scenario.kind === 'archive' ? 'archived' : null);
      }
      tally[scenario.kind]![outcome]++;
      outcomes.push(outcome);
    }
    // Stops before the commit point roll back, stops after it roll forward: one switch.
    const firstGone = outcomes.indexOf('gone');
    expect(firstGone, `${scenario.kind}: some stops roll forward`).toBeGreaterThan(0);
    expect(outcomes.slice(firstGone).every((o) => o === 'gone'), `${scenario.kind}: ${outcomes.join(',')}`).toBe(true);
  }
  console.log(`skills crash (failAfterStep): ${JSON.stringify(tally)}`);
  // Whatever the journal's exact steps, each of the 6 (delete) or 12 (archive) file changes
  // after the commit point is a stop that must roll forward.
  expect(tally.delete!.gone).toBeGreaterThanOrEqual(6);
  expect(tally.archive!.gone).toBeGreaterThanOrEqual(12);
});

test('a tab that dies after the files changed but before the catalogue followed leaves no stale index', async ({ page }) => {
  await openSkills(page);
  await createFullSkill(page, 'doomed', 'foreground');
  await createFullSkill(page, 'kept', 'foreground');

  // The journaled delete finishes (its intent is gone), then the tab "dies": the catalogue
  // update never completes. Likewise for a create, whose SKILL.md write is a single file.
  for (const action of ['delete', 'create'] as const) {
    await page.evaluate(() => {
      const catalog = globalThis.knack!.skills!.engine.catalog;
      catalog.remove = () => new Promise(() => undefined);
      catalog.upsert = () => new Promise(() => undefined);
    });
    const args = action === 'delete' ? { action, name: 'doomed' } : { action, name: 'newborn', content: skillMd('newborn') };
    void callTool(page, 'skill_manage', args).catch(() => undefined);
    await expect
      .poll(() =>
        page.evaluate(async (action) => {
          const files = globalThis.knack!.files!;
          const intents = await globalThis.knack!.journal!.unfinished();
          const present = await files.exists(action === 'delete' ? 'skills/doomed/SKILL.md' : 'skills/newborn/SKILL.md');
          return intents.length === 0 && present === (action === 'create');
        }, action),
      )
      .toBe(true);
    await openSkills(page); // no intent is left, so recovery has nothing to settle
    const state = await expectConsistentStore(page, `after a ${action} cut off before the catalogue update`);
    expect(state.listed).toEqual(action === 'delete' ? ['kept'] : ['kept', 'newborn']);
  }
});

const KILLS = 6;
/** A kill comes after at least 3 storm operations, and up to this many more (a round is 7–8). */
const EXTRA_OPS = 16;
/** Past the first round of a storm (at most 8 operations). */
const PAST_FIRST_ROUND = 10;

test('skill operations killed by renderer crashes and browser SIGKILL recover whole', async ({ baseURL, seed }) => {
  test.setTimeout(150_000);
  const random = prng(seed);
  // One kill, chosen by the seed, comes after the first round, so the storms provably get past it.
  const lateKill = randomBelow(random, KILLS);
  const userDataDir = mkdtempSync(join(tmpdir(), 'knack-skills-crash-'));
  const launch = () => chromium.launchPersistentContext(userDataDir, { ...chromiumLaunch, headless: true, serviceWorkers: 'block', baseURL });
  let context: BrowserContext = await launch();
  let rounds = 0;
  let settled = 0;
  try {
    for (let kill = 0; kill <= KILLS; kill++) {
      const page = await context.newPage();
      await openSkills(page);
      settled += await page.evaluate(() => {
        const r = globalThis.knack!.recovery!;
        return r.rolledForward.length + r.rolledBack.length;
      });
      const state = await expectConsistentStore(page, `after ${kill} kills`);
      // Deletes and archives are whole: an archived skill has all six files.
      const archivedDirs = [...new Set(state.files.filter((p) => p.startsWith('skills/.archive/')).map((p) => p.split('/').slice(0, 3).join('/')))];
      for (const dir of archivedDirs) expect(filesIn(state, dir), `archived ${dir} after ${kill} kills`).toEqual(SKILL_FILES);
      if (kill === KILLS) break;

      if (!state.listed.includes('umbrella')) {
        const created = await callTool(page, 'skill_manage', { action: 'create', name: 'umbrella', content: skillMd('umbrella', 'Use when testing umbrella.', '# umbrella\n\nLOG\n') });
        expect(created.result).toMatchObject({ success: true });
      }
      // Each storm numbers its skills from its own block, so a round cut off by the kill never
      // collides with the next storm's names.
      await startStorm(page, kill * 1000);
      const ops = kill === lateKill ? PAST_FIRST_ROUND + randomBelow(random, 8) : 3 + randomBelow(random, EXTRA_OPS + 1);
      await page.waitForFunction((n) => {
        const w = globalThis as unknown as { stormOps: number; stormError: string | null };
        return w.stormOps >= n || w.stormError !== null;
      }, ops);
      const progress = await page.evaluate(() => {
        const w = globalThis as unknown as { stormRound: number; stormError: string | null };
        return { stormRound: w.stormRound, stormError: w.stormError };
      });
      expect(progress.stormError, `storm before kill ${kill}`).toBeNull();
      rounds += progress.stormRound - kill * 1000 + 1;

      if (kill % 2 === 0) {
        const cdp = await context.newCDPSession(page);
        void cdp.send('Page.crash').catch(() => undefined);
        await page.waitForEvent('crash').catch(() => undefined);
        await page.close().catch(() => undefined);
      } else {
        const pid = browserPid(userDataDir);
        expect(pid, 'browser process of the persistent context').not.toBeNull();
        const closed = new Promise<void>((resolve) => context.once('close', () => resolve()));
        process.kill(pid!, 'SIGKILL');
        await closed;
        context = await launch();
      }
    }
  } finally {
    await context.close().catch(() => undefined);
    rmSync(userDataDir, { recursive: true, force: true });
  }
  console.log(`skills crash (kills): ${KILLS} kills, ${rounds} storm rounds begun, intents settled at boot ${settled}`);
  expect(rounds).toBeGreaterThan(KILLS);
});

/** Endless loop in the page: create a 6-file skill, patch the umbrella, delete or archive the skill. */
async function startStorm(page: Page, firstRound: number): Promise<void> {
  await page.evaluate(
    ({ firstRound, support }) => {
      const w = globalThis as unknown as { stormOps: number; stormRound: number; stormError: string | null };
      w.stormOps = 0;
      w.stormRound = firstRound;
      w.stormError = null;
      const call = async (args: Record<string, unknown>, origin: 'foreground' | 'review') => {
        const { result, raw } = await globalThis.skillProbe!.call('skill_manage', args, origin);
        if (!result.success) throw new Error(raw);
        w.stormOps++;
      };
      void (async () => {
        for (let round = firstRound; ; round++) {
          w.stormRound = round;
          const name = `storm-${round}`;
          const origin = round % 2 ? 'review' : 'foreground';
          await call({ action: 'create', name, content: `---\nname: ${name}\ndescription: Use when storming ${round}.\n---\n\n# ${name}\n` }, origin);
          for (const [file_path, file_content] of Object.entries(support)) await call({ action: 'write_file', name, file_path, file_content }, origin);
          await call({ action: 'patch', name: 'umbrella', old_string: 'LOG', new_string: `round ${round}\nLOG` }, 'foreground');
          // Keep every third skill; archive (review) or delete (foreground) the others.
          if (round % 3 !== 0) await call({ action: 'delete', name, ...(origin === 'review' ? { absorbed_into: 'umbrella' } : {}) }, origin);
        }
      })().catch((error) => {
        w.stormError = String(error);
      });
    },
    { firstRound, support: SUPPORT_FILES },
  );
}
