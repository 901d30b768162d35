/**
 * SPEC §18: fuzzing every skill tool with random and malformed arguments. On the in-memory
 * engine, a few thousand seeded cases (tests/fixtures/skillFuzzCases.ts): every call resolves
 * to valid JSON with a boolean `success`, and afterwards every SKILL.md still validates and the
 * catalogue equals a rescan of the files. The browser version is tests/browser/skills-fuzz.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { SkillCatalog } from '../../src/skills/skillCatalog';
import { validateFrontmatter } from '../../src/skills/validation';
import { createWriteContext } from '../../src/tools/writeContext';
import { FUZZ_SKILL_NAMES, fuzzCases, validSkillMd } from '../fixtures/skillFuzzCases';
import { createTestEngine } from './helpers/skillTestEngine';

const digest = (catalog: SkillCatalog) =>
  catalog
    .entries()
    .map((e) => JSON.stringify([e.dir, e.name, e.category, e.frontmatterName, e.description, e.tags, e.parseError ?? null]))
    .sort();

describe.each([1, 2, 3])('skill tools under fuzzing (seed %i)', (seed) => {
  it('answer 1,200 random calls with JSON results and keep the store consistent', async () => {
    const { registry, engine, files } = createTestEngine();
    for (const name of FUZZ_SKILL_NAMES.slice(0, 2)) {
      const created = JSON.parse(await registry.dispatch('skill_manage', { action: 'create', name, content: validSkillMd(name) }, createWriteContext('foreground')));
      expect(created.success).toBe(true);
    }
    const tally = { success: 0, failure: 0 };
    const contexts = [createWriteContext('foreground'), createWriteContext('review'), createWriteContext('user')];
    const cases = fuzzCases(seed, 1200);
    for (const [i, call] of cases.entries()) {
      const raw = await registry.dispatch(call.tool, call.args, contexts[i % contexts.length]!);
      expect(typeof raw, `case ${i}`).toBe('string');
      let parsed: unknown;
      expect(() => (parsed = JSON.parse(raw)), `case ${i}: ${raw.slice(0, 200)}`).not.toThrow();
      const result = parsed as { success: unknown; error?: unknown; message?: unknown };
      expect(typeof result.success, `case ${i}: ${raw.slice(0, 200)}`).toBe('boolean');
      if (result.success) tally.success++;
      else {
        tally.failure++;
        expect(typeof result.error, `case ${i}: a failure says why`).toBe('string');
        expect(String(result.error), `case ${i}`).not.toMatch(/^skill_manage failed|^skill_view failed|^skills_list failed/);
      }
    }
    // The mix exercised both paths (writes really happened).
    expect(tally.success).toBeGreaterThan(50);
    expect(tally.failure).toBeGreaterThan(50);

    const skillMds = (await files.walk('skills')).filter((p) => p.endsWith('/SKILL.md') && !p.startsWith('skills/.archive/'));
    for (const path of skillMds) expect(validateFrontmatter((await files.readText(path))!), path).toBeNull();
    const rescanned = new SkillCatalog(files);
    await rescanned.rescan();
    expect(digest(engine.catalog)).toEqual(digest(rescanned));
    // Nothing escaped the skills tree.
    expect((await files.walk('')).filter((p) => !p.startsWith('skills/'))).toEqual([]);
    // 1,200 tool calls against the in-memory store: up to 3 s measured on a loaded 2-core
    // box, too near vitest's 5 s default for a test that is slow only because it is thorough.
  }, 20_000);
});
