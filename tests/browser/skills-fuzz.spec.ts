/**
 * SPEC §18 fuzzing, in the app on OPFS and IndexedDB: seeded random and malformed calls to
 * every skill tool (tests/fixtures/skillFuzzCases.ts) through `knack.skills.registry`. Every
 * result must be valid JSON with a boolean `success` (a failure with an `error` string), no
 * error may escape to the page, and afterwards the store invariants hold: every SKILL.md
 * parses, the catalogue and its snapshot equal a rescan, no temp file or intent is left, and
 * nothing was written outside `skills/`.
 */
import { expect, test } from './fixtures';
import { FUZZ_SKILL_NAMES, fuzzCases, validSkillMd } from '../fixtures/skillFuzzCases';
import { callTool, openSkills, storeState } from './skillHarness';

const CASES = 600;
const BATCH = 50;

test('600 random and malformed skill tool calls answer in JSON and leave the store consistent', async ({ page, seed }) => {
  test.setTimeout(120_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await openSkills(page);
  for (const name of FUZZ_SKILL_NAMES.slice(0, 2)) {
    const created = await callTool(page, 'skill_manage', { action: 'create', name, content: validSkillMd(name) });
    expect(created.result, created.raw).toMatchObject({ success: true });
  }

  const cases = fuzzCases(seed, CASES);
  const tally = { success: 0, failure: 0 };
  for (let start = 0; start < cases.length; start += BATCH) {
    const batch = cases.slice(start, start + BATCH);
    const outcomes = await page.evaluate(async ({ batch, start }) => {
      const registry = globalThis.knack!.skills!.registry;
      const origins = ['foreground', 'review', 'user'] as const;
      const out: { index: number; problem: string | null; success: boolean }[] = [];
      for (const [offset, call] of batch.entries()) {
        const index = start + offset;
        let problem: string | null = null;
        let success = false;
        try {
          const raw = await registry.dispatch(call.tool, call.args, { origin: origins[index % 3]!, readPaths: new Set() });
          const result = JSON.parse(raw) as { success?: unknown; error?: unknown };
          if (typeof result.success !== 'boolean') problem = `no boolean success: ${raw.slice(0, 200)}`;
          else if (!result.success && typeof result.error !== 'string') problem = `failure without an error: ${raw.slice(0, 200)}`;
          // The registry turns a throwing tool into "<tool> failed: …": a tool should never throw.
          else if (!result.success && /^(skill_manage|skill_view|skills_list) failed: /.test(result.error as string)) problem = `tool threw: ${(result.error as string).slice(0, 300)}`;
          success = result.success === true;
        } catch (error) {
          problem = `dispatch rejected or returned invalid JSON: ${String(error)}`;
        }
        out.push({ index, problem, success });
      }
      return out;
    }, { batch, start });
    for (const outcome of outcomes) {
      expect(outcome.problem, `case ${outcome.index} (KNACK_SEED=${seed}): ${JSON.stringify(cases[outcome.index]).slice(0, 300)}`).toBeNull();
      tally[outcome.success ? 'success' : 'failure']++;
    }
  }
  expect(tally.success).toBeGreaterThan(20);
  expect(tally.failure).toBeGreaterThan(20);
  expect(pageErrors).toEqual([]);

  const state = await storeState(page);
  expect(state.temps).toEqual([]);
  expect(state.orphanDirs).toEqual([]);
  expect(state.rescan.filter((e) => e.parseError !== null)).toEqual([]);
  expect(state.catalog).toEqual(state.rescan);
  expect(state.snapshot).toEqual(state.rescan);
  const outside = await page.evaluate(async () => (await globalThis.knack!.files!.walk('')).filter((p) => !p.startsWith('skills/')));
  expect(outside).toEqual([]);
  expect(await page.evaluate(async () => (await globalThis.knack!.journal!.unfinished()).length)).toBe(0);
  console.log(`skills fuzz: ${tally.success} successes, ${tally.failure} failures, ${state.skillDirs.length} skills at the end`);
});
