import { describe, expect, it } from 'vitest';
import { strToU8 } from 'fflate';
import { applyExportFix, isSpecName, planExportFix, trimAtBoundary, withoutAngleBrackets } from '../../src/skills/exportFixes';
import { skillMdProblems } from '../../src/skills/exportProblems';
import { createTestEngine } from './helpers/skillTestEngine';

const BODY = '\n# Body\n\nKept exactly.\n';

function fixed(fix: Parameters<typeof planExportFix>[0], folder: string, text: string): string {
  const plan = planExportFix(fix, folder, text);
  if (!plan.ok) throw new Error(plan.error);
  expect(plan.content.endsWith(BODY)).toBe(true);
  expect(skillMdProblems(folder, strToU8(plan.content)).map((p) => p.fix)).not.toContain(fix);
  return plan.content;
}

describe('export fixes', () => {
  it('knows the standard name rule', () => {
    expect(['a', 'pdf-tools', 'x1-y2'].every(isSpecName)).toBe(true);
    expect(['', '-a', 'a-', 'a--b', 'A', 'a_b', 'a.b', 'x'.repeat(65)].some(isSpecName)).toBe(false);
  });

  it('uses the folder name as the name', () => {
    expect(fixed('use-folder-name', 'cloudinary-automation', `---\nname: Cloudinary Automation\ndescription: d\n---\n${BODY}`)).toBe(
      `---\nname: cloudinary-automation\ndescription: d\n---\n${BODY}`,
    );
    expect(planExportFix('use-folder-name', 'zoho_books', `---\nname: zoho_books\ndescription: d\n---\n${BODY}`)).toMatchObject({ ok: false });
  });

  it('trims a description at a sentence, else a word boundary', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const cut = trimAtBoundary(sentences, 1024);
    expect(cut.length).toBeLessThanOrEqual(1024);
    expect(cut.endsWith('.')).toBe(true);
    expect(trimAtBoundary('word '.repeat(300), 1024)).toMatch(/word$/);
    const text = fixed('trim-description', 'a', `---\nname: a\ndescription: "${sentences}"\n---\n${BODY}`);
    expect(text).toContain('Sentence number 0 is here.');
  });

  it('joins an allowed-tools list, takes angle brackets out, moves unread fields under metadata', () => {
    expect(fixed('join-allowed-tools', 'a', `---\nname: a\ndescription: d\nallowed-tools:\n  - Read\n  - Bash\n---\n${BODY}`)).toContain('allowed-tools: Read Bash');
    expect(withoutAngleBrackets('Wrap in <ViewTransition> when a < b')).toBe('Wrap in `ViewTransition` when a less than b');
    fixed('escape-angle-brackets', 'a', `---\nname: a\ndescription: Use <Tag> here\n---\n${BODY}`);
    const moved = fixed('move-to-metadata', 'a', `---\nname: a\ndescription: d\nrequires:\n  mcp: [rube]\nversion: "1"\nmetadata:\n  author: me\n---\n${BODY}`);
    expect(moved).toBe(`---\nname: a\ndescription: d\nversion: "1"\nmetadata:\n  author: me\n  requires:\n    mcp: [ rube ]\n---\n${BODY}`);
  });

  it('applies a fix as one journaled user edit with a ledger entry', async () => {
    const t = createTestEngine();
    await t.files.write('skills/cloudinary-automation/SKILL.md', `---\nname: Cloudinary Automation\ndescription: d\n---\n${BODY}`);
    await t.engine.catalog.rescan();
    const result = await applyExportFix(t.engine, 'cloudinary-automation', 'use-folder-name');
    expect(result).toEqual({ ok: true, message: "Fixed cloudinary-automation: name set to 'cloudinary-automation'." });
    expect(await t.files.readText('skills/cloudinary-automation/SKILL.md')).toBe(`---\nname: cloudinary-automation\ndescription: d\n---\n${BODY}`);
    const entries = await t.engine.ledger.list('cloudinary-automation');
    expect(entries.map((e) => [e.actor, e.action])).toEqual([['user', 'edit']]);
    expect(await applyExportFix(t.engine, 'missing', 'use-folder-name')).toMatchObject({ ok: false });
  });
});
