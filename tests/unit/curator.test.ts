/**
 * Ports of Hermes' curator and usage-lifecycle tests (reference/hermes-spec.md §11.5) that apply
 * to Knack. Left out: bundled/hub/external/cron/protected-builtin rows (Knack has none of
 * those sources), the LLM consolidation pass and model-resolution rows (Knack's curator is
 * deterministic only), CLI rows, and report-file rows (runs show in the Activity view).
 */
import { describe, expect, it } from 'vitest';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { planTransitions, scheduleDecision, defaultCuratorConfig, emptyCuratorState } from '../../src/curator/curatorRules';
import { maybeRunCurator, runCurator } from '../../src/curator/curator';
import { restoreSkill } from '../../src/skills/skillLifecycle';
import { emptyUsageRecord } from '../../src/skills/usageStore';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import type { CuratorState } from '../../src/curator/curatorRules';

async function agentSkill(t: ReturnType<typeof createTestEngine>, name: string) {
  const result = await t.manage({ action: 'create', name, content: skillContent(name) }, t.context('review'));
  expect(result.success).toBe(true);
}

describe('curator lifecycle', () => {
  it('test_curator_defaults', () => {
    expect(defaultCuratorConfig).toMatchObject({ intervalHours: 168, minIdleHours: 2, staleAfterDays: 30, archiveAfterDays: 90 });
  });

  it('test_unused_skill_transitions_to_stale', async () => {
    const t = createTestEngine();
    await agentSkill(t, 'narrow');
    await t.engine.usage.bumpUse('narrow');
    t.advanceDays(31);
    const run = await runCurator(t.engine);
    expect(run.transitions).toEqual([{ name: 'narrow', from: 'active', to: 'stale' }]);
    expect((await t.engine.usage.get('narrow')).state).toBe('stale');
  });

  it('test_very_old_skill_gets_archived (journaled move to .archive)', async () => {
    const t = createTestEngine();
    await agentSkill(t, 'narrow');
    await t.manage({ action: 'write_file', name: 'narrow', file_path: 'references/a.md', file_content: 'a' });
    await t.engine.usage.bumpUse('narrow');
    t.advanceDays(91);
    await runCurator(t.engine);
    expect(await t.files.exists('skills/.archive/narrow/references/a.md')).toBe(true);
    expect(await t.files.exists('skills/narrow')).toBe(false);
    expect((await t.engine.usage.get('narrow')).state).toBe('archived');
    expect(t.engine.catalog.findByName('narrow')).toEqual([]);
  });

  it('test_pinned_skill_is_never_touched', async () => {
    const t = createTestEngine();
    await agentSkill(t, 'narrow');
    await t.engine.usage.bumpUse('narrow');
    await t.engine.usage.setPinned('narrow', true);
    t.advanceDays(200);
    expect((await runCurator(t.engine)).transitions).toEqual([]);
  });

  it('test_stale_skill_reactivates_on_recent_use', async () => {
    const t = createTestEngine();
    await agentSkill(t, 'narrow');
    await t.engine.usage.bumpUse('narrow');
    t.advanceDays(31);
    await runCurator(t.engine);
    await t.engine.usage.setState('narrow', 'stale');
    t.advanceDays(1);
    // A view counts as activity (test_curator_activity: a recent view prevents a false stale).
    await t.call('skill_view', { name: 'narrow' });
    expect((await t.engine.usage.get('narrow')).state).toBe('active');
  });

  it('test_new_skill_without_last_used_not_immediately_archived / never-used grace', () => {
    const now = new Date('2026-11-01T00:00:00Z');
    const fresh = { ...emptyUsageRecord('fresh'), created_by: 'agent' as const, created_at: new Date(now.getTime() - 10 * 86_400_000).toISOString() };
    const old = { ...emptyUsageRecord('old'), created_by: 'agent' as const, created_at: new Date(now.getTime() - 100 * 86_400_000).toISOString() };
    expect(planTransitions([fresh, old], now)).toEqual([{ name: 'old', from: 'active', to: 'archived' }]);
  });

  it('test_manual_skill_is_not_auto_archived', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'mine', content: skillContent('mine') });
    await t.engine.usage.bumpUse('mine');
    t.advanceDays(365);
    expect((await runCurator(t.engine)).transitions).toEqual([]);
  });

  it('change events name the folder that changed (one per transition), so other tabs and the worker re-read it', async () => {
    const t = createTestEngine();
    await agentSkill(t, 'narrow');
    const changes: { skill: string; action: string; dir: string }[] = [];
    t.engine.onChange = (change) => changes.push(change);
    t.advanceDays(31);
    await runCurator(t.engine);
    t.advanceDays(60);
    await runCurator(t.engine);
    expect(changes).toEqual([
      { skill: 'narrow', action: 'curator:stale', dir: 'skills/narrow' },
      { skill: 'narrow', action: 'archive', dir: 'skills/narrow' },
    ]);
    // The archive is the skill lifecycle's, recorded with the curator as actor.
    expect((await t.engine.ledger.list('narrow')).at(-1)).toMatchObject({ actor: 'curator', action: 'archive', evidence: { reason: 'unused past the archive window' } });
  });

  it('test_dry_run_does_not_change_anything', async () => {
    const t = createTestEngine();
    await agentSkill(t, 'narrow');
    await t.engine.usage.bumpUse('narrow');
    t.advanceDays(91);
    const run = await runCurator(t.engine, { dryRun: true });
    expect(run.summary).toBe('dry-run auto: 1 archived');
    expect(await t.files.exists('skills/narrow/SKILL.md')).toBe(true);
    expect((await t.engine.usage.get('narrow')).state).toBe('active');
  });
});

describe('curator schedule', () => {
  const now = new Date('2026-11-01T00:00:00Z');
  const hours = (h: number) => h * 3_600_000;

  it('test_first_run_defers: the first call seeds the clock and does not run', () => {
    const first = scheduleDecision(emptyCuratorState(), now, hours(10));
    expect(first.run).toBe(false);
    expect(first.seedState?.lastRunAt).toBe(now.toISOString());
    expect(scheduleDecision(first.seedState!, new Date(now.getTime() + hours(1)), hours(10)).run).toBe(false);
  });

  it('test_recent_run_blocks / test_old_run_eligible / idle gate / paused / disabled', () => {
    const ranAt = { lastRunAt: now.toISOString(), runCount: 1, lastSummary: '' };
    expect(scheduleDecision(ranAt, new Date(now.getTime() + hours(100)), hours(10)).run).toBe(false);
    expect(scheduleDecision(ranAt, new Date(now.getTime() + hours(169)), hours(10)).run).toBe(true);
    expect(scheduleDecision(ranAt, new Date(now.getTime() + hours(169)), hours(1)).reason).toBe('user active');
    expect(scheduleDecision(ranAt, new Date(now.getTime() + hours(169)), hours(10), { ...defaultCuratorConfig, paused: true }).run).toBe(false);
    expect(scheduleDecision(ranAt, new Date(now.getTime() + hours(169)), hours(10), { ...defaultCuratorConfig, enabled: false }).run).toBe(false);
  });

  it('test_maybe_run_curator_defers_on_fresh_install, then runs and records state', async () => {
    const t = createTestEngine();
    const state = new MemoryRecordStore<CuratorState>();
    expect(await maybeRunCurator(t.engine, state, hours(10))).toBeNull();
    t.advanceDays(8);
    const run = await maybeRunCurator(t.engine, state, hours(10));
    expect(run?.summary).toBe('auto: no changes');
    expect(await state.get('curator')).toMatchObject({ runCount: 1, lastSummary: 'auto: no changes' });
  });

  it('test_maybe_run_curator_swallows_exceptions', async () => {
    const t = createTestEngine();
    const broken = new MemoryRecordStore<CuratorState>();
    broken.get = async () => {
      throw new Error('boom');
    };
    expect(await maybeRunCurator(t.engine, broken, hours(10))).toBeNull();
  });
});

describe('restore', () => {
  it('test_restore_skill_moves_back and is active again', async () => {
    const t = createTestEngine();
    await agentSkill(t, 'narrow');
    await t.engine.usage.bumpUse('narrow');
    t.advanceDays(91);
    await runCurator(t.engine);
    const restored = await restoreSkill(t.engine, 'narrow');
    expect(restored).toEqual({ success: true, dir: 'skills/narrow' });
    expect(await t.files.exists('skills/narrow/SKILL.md')).toBe(true);
    expect(await t.files.exists('skills/.archive/narrow')).toBe(false);
    expect((await t.engine.usage.get('narrow')).state).toBe('active');
    expect(t.engine.catalog.findByName('narrow')).toHaveLength(1);
  });

  it('test_restore_does_not_pull_unrelated_sibling_out_of_archive and prefers the timestamped dupe', async () => {
    const t = createTestEngine();
    await t.files.write('skills/.archive/git-helpers/SKILL.md', skillContent('git-helpers'));
    expect((await restoreSkill(t.engine, 'git')).success).toBe(false);
    await t.files.write('skills/.archive/git-20261001120000/SKILL.md', skillContent('git'));
    await t.files.write('skills/.archive/git-20261101120000/SKILL.md', skillContent('git', 'Newer.'));
    expect((await restoreSkill(t.engine, 'git')).success).toBe(true);
    expect(await t.files.readText('skills/git/SKILL.md')).toContain('Newer.');
  });

  it('test_archive_collision_gets_suffix', async () => {
    const t = createTestEngine();
    await t.files.write('skills/.archive/narrow/SKILL.md', skillContent('narrow', 'Old copy.'));
    await agentSkill(t, 'narrow');
    await t.engine.usage.bumpUse('narrow');
    t.advanceDays(91);
    await runCurator(t.engine);
    const archived = (await t.files.list('skills/.archive')).map((e) => e.name);
    expect(archived).toContain('narrow');
    expect(archived.some((n) => /^narrow-\d{14}$/.test(n))).toBe(true);
  });

  it('restore refuses when the name is taken', async () => {
    const t = createTestEngine();
    await t.files.write('skills/.archive/x/SKILL.md', skillContent('x'));
    await t.manage({ action: 'create', name: 'x', content: skillContent('x') });
    const result = await restoreSkill(t.engine, 'x');
    expect(result.success).toBe(false);
  });
});
