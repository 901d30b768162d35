import { describe, expect, it } from 'vitest';
import { indexLabel, labelInputOf, usageIndexLabel } from '../../../src/gate/indexLabel';
import { SkillIndex, type SkillLabel } from '../../../src/skills/skillIndex';
import { createTestEngine, skillContent } from '../helpers/skillTestEngine';

describe('usage label → verdictLabel', () => {
  it('maps the stored word, staleness and approval onto what verdictLabel reads', () => {
    expect(labelInputOf(undefined)).toEqual({ verdict: null, fresh: true, approvedBy: null });
    expect(labelInputOf({ verification: 'unmeasured', state: 'stale' })).toEqual({ verdict: null, fresh: true, approvedBy: null });
    expect(labelInputOf({ verification: 'staged', state: 'active', approvedBy: 'user', stale: true })).toEqual({ verdict: 'staged', fresh: false, approvedBy: 'user' });
  });

  it.each<[string, SkillLabel | undefined, string | null]>([
    ['default (never run)', undefined, '[unverified]'],
    ['promoted and fresh', { verification: 'promoted', state: 'active' }, '[verified]'],
    ['promoted but stale', { verification: 'promoted', state: 'active', stale: true }, '[unverified]'],
    ['staged', { verification: 'staged', state: 'active' }, '[unverified]'],
    ['staged and approved', { verification: 'staged', state: 'active', approvedBy: 'user' }, '[approved]'],
    ['approved but stale', { verification: 'staged', state: 'active', approvedBy: 'user', stale: true }, '[unverified]'],
    ['rejected', { verification: 'rejected', state: 'active' }, null],
    ['rejected but edited since', { verification: 'rejected', state: 'active', stale: true }, '[unverified]'],
  ])('%s', (_name, label, expected) => {
    expect(usageIndexLabel(label)).toBe(expected);
  });
});

describe('the skill index with the gate label injected', () => {
  async function indexWith(labels: Map<string, SkillLabel>) {
    const t = createTestEngine();
    for (const name of ['proven', 'learned', 'refused', 'accepted', 'edited', 'unused']) {
      await t.manage({ action: 'create', name, content: skillContent(name) });
    }
    const index = new SkillIndex(t.engine.catalog, async () => labels, indexLabel);
    return index.render({ platform: null, disabled: [], available: null, tokenBudget: 2500 });
  }

  it('promoted & fresh → [verified], staged → [unverified], rejected → absent, approved → [approved], stale promoted → [unverified]', async () => {
    const text = await indexWith(
      new Map<string, SkillLabel>([
        ['proven', { verification: 'promoted', state: 'active' }],
        ['learned', { verification: 'staged', state: 'active' }],
        ['refused', { verification: 'rejected', state: 'active' }],
        ['accepted', { verification: 'staged', state: 'active', approvedBy: 'user' }],
        ['edited', { verification: 'promoted', state: 'active', stale: true }],
        ['unused', { verification: 'promoted', state: 'stale' }],
      ]),
    );
    expect(text).toContain('- proven: Use for proven. [verified]\n');
    expect(text).toContain('- learned: Use for learned. [unverified]\n');
    expect(text).not.toContain('refused');
    expect(text).toContain('- accepted: Use for accepted. [approved]\n');
    expect(text).toContain('- edited: Use for edited. [unverified]\n');
    // The curator's [stale] (unused for 30 days) is the index's own, after the verification label.
    expect(text).toContain('- unused: Use for unused. [verified] [stale]\n');
    const lines = text.slice(text.indexOf('<available_skills>')).split('\n');
    expect(lines.filter((line) => line.includes('[approved]') && line.includes('[verified]'))).toEqual([]);
  });

  it('the label function given to SkillIndex wins over one passed to render', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'proven', content: skillContent('proven') });
    const labels = new Map<string, SkillLabel>([['proven', { verification: 'promoted', state: 'active' }]]);
    const index = new SkillIndex(t.engine.catalog, async () => labels, indexLabel);
    const text = await index.render({ platform: null, disabled: [], available: null, tokenBudget: 2500, label: () => null });
    expect(text).toContain('- proven: Use for proven. [verified]');
  });
});
