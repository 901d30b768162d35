/**
 * A repeated skill_view costs a line (docs/skill-tools.md, "A repeated view"): within one turn
 * a second view of the same unchanged file answers with a notice; a changed file, another part
 * of it, or a view after a compaction is sent in full.
 */
import { describe, expect, it } from 'vitest';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { ViewedFiles } from '../../src/tools/viewedFiles';
import { createWriteContext } from '../../src/tools/writeContext';

async function library() {
  const t = createTestEngine();
  const steps = Array.from({ length: 30 }, (_, i) => `${i + 1}. Step ${i + 1} of brewing: weigh, warm, pour and wait.`).join('\n');
  await t.files.write('skills/tea/SKILL.md', skillContent('tea', 'Brew tea well.', `Steep green tea at 80 °C for two minutes.\n${steps}`));
  await t.files.write('skills/tea/references/water.md', 'Soft water, never boiled twice.\n');
  await t.engine.catalog.rescan();
  return t;
}

describe('ViewedFiles', () => {
  it('knows a text sent under a key until it changes or is cleared', () => {
    const viewed = new ViewedFiles();
    const key = ViewedFiles.key('skills/tea/SKILL.md', 0);
    expect(viewed.alreadySent(key, 'a')).toBe(false);
    viewed.remember(key, 'a');
    expect(viewed.alreadySent(key, 'a')).toBe(true);
    expect(viewed.alreadySent(key, 'b')).toBe(false);
    expect(viewed.alreadySent(ViewedFiles.key('skills/tea/SKILL.md', 600), 'a')).toBe(false);
    viewed.clear();
    expect(viewed.alreadySent(key, 'a')).toBe(false);
    expect(viewed.size).toBe(0);
  });
});

describe('skill_view twice in one turn', () => {
  it('the second view of an unchanged SKILL.md is a short notice with success true', async () => {
    const t = await library();
    const context = createWriteContext('foreground', 's1');
    const first = await t.call('skill_view', { name: 'tea' }, context);
    expect(first.content).toContain('80 °C');
    const second = await t.call('skill_view', { name: 'tea' }, context);
    expect(second).toMatchObject({ success: true, name: 'tea', already_in_conversation: true, skill_dir: 'skills/tea' });
    expect(second.content).toBeUndefined();
    expect(second.message).toContain('not sent again');
    expect(JSON.stringify(second).length).toBeLessThan(JSON.stringify(first).length / 4);
  });

  it('a changed file is sent again, and so is everything after a compaction or in a new turn', async () => {
    const t = await library();
    const context = createWriteContext('foreground', 's1');
    await t.call('skill_view', { name: 'tea' }, context);
    await t.files.write('skills/tea/SKILL.md', skillContent('tea', 'Brew tea well.', 'Steep green tea at 75 °C for ninety seconds.'));
    const changed = await t.call('skill_view', { name: 'tea' }, context);
    expect(changed.content).toContain('75 °C');
    expect(changed.already_in_conversation).toBeUndefined();

    context.viewedFiles!.clear(); // what the chat does when a compaction happened
    expect((await t.call('skill_view', { name: 'tea' }, context)).content).toContain('75 °C');

    const nextTurn = createWriteContext('foreground', 's1');
    expect((await t.call('skill_view', { name: 'tea' }, nextTurn)).content).toContain('75 °C');
  });

  it('supporting files are tracked on their own', async () => {
    const t = await library();
    const context = createWriteContext('foreground', 's1');
    await t.call('skill_view', { name: 'tea' }, context);
    const file = await t.call('skill_view', { name: 'tea', file_path: 'references/water.md' }, context);
    expect(file.content).toContain('Soft water');
    const again = await t.call('skill_view', { name: 'tea', file_path: 'references/water.md' }, context);
    expect(again).toMatchObject({ success: true, file: 'references/water.md', already_in_conversation: true });
  });
});
