import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReviewWorkerHandler } from '../../src/app/reviewWorkerHandler';
import type { AppServices } from '../../src/app/appServices';
import type { ProviderSettings } from '../../src/providers/createProvider';
import type { ReviewWorkerApi } from '../../src/review/reviewWorkerApi';
import { fakeProvider, type FakeTurn } from './helpers/fakeProvider';
import { memoryAppServices } from './helpers/memoryAppServices';
import { skillContent } from './helpers/skillTestEngine';
import { createWriteContext } from '../../src/tools/writeContext';

const conversation = [
  { role: 'user' as const, content: 'Clean up this CSV export.' },
  { role: 'assistant' as const, content: 'Done: the header row is fixed.' },
];

const opened: AppServices[] = [];
afterEach(() => {
  for (const app of opened.splice(0)) app.changes.close();
});

/** The handler on in-memory storage, with a scripted provider; records which settings it got. */
async function handler(turns: FakeTurn[]) {
  const { app, storage } = await memoryAppServices('worker');
  opened.push(app);
  const seen: ProviderSettings[] = [];
  const fake = fakeProvider(turns);
  const api: ReviewWorkerApi = createReviewWorkerHandler(async () => app, {
    createProvider: async (settings) => {
      seen.push(settings);
      return fake.provider;
    },
  });
  return { api, app, storage, seen, requests: fake.requests };
}

const job = (runId = 'run-1') => ({ runId, sessionId: 's1', kind: 'skills' as const, sessionMessages: conversation, systemPrompt: 'SYS' });

describe('the review worker handler (in-thread)', () => {
  it('runs a review with the review provider read from the settings records at the start of the job', async () => {
    const { api, app, storage, seen } = await handler([
      { toolCalls: [{ name: 'skill_manage', arguments: JSON.stringify({ action: 'create', name: 'csv-cleanup', content: skillContent('csv-cleanup') }) }] },
      { text: 'Saved a csv-cleanup skill.' },
    ]);
    // Written by the tab a moment ago: the handler re-reads the record, no event needed.
    await storage.stores.settings.put('app', { baseUrl: 'http://server/v1', model: 'chat-model', reviewProvider: { baseUrl: '', model: 'review-model' } });
    const outcome = await api.runReview(job());
    expect(seen).toEqual([expect.objectContaining({ baseUrl: 'http://server/v1', model: 'review-model' })]);
    expect(outcome).toMatchObject({ end: 'final', notices: ['Learned: skill `csv-cleanup` created — unverified'] });
    expect((await (await app.skills()).engine.usage.get('csv-cleanup')).created_by).toBe('agent');
    expect(await api.ping()).toBe(1);
  });

  it('reports a staged write as fields, and the pending store tells every context', async () => {
    const { api, app, storage } = await handler([
      { toolCalls: [{ name: 'skill_manage', arguments: JSON.stringify({ action: 'create', name: 'csv-cleanup', content: skillContent('csv-cleanup') }) }] },
      { text: 'Staged it.' },
    ]);
    await app.settings.update('skills', { writeApproval: 'review' });
    const outcome = await api.runReview(job());
    expect(outcome.toolCalls).toEqual([expect.objectContaining({ name: 'skill_manage', success: true, staged: true, gist: expect.stringContaining("create 'csv-cleanup'") })]);
    expect(outcome.notices).toEqual([expect.stringMatching(/^Staged for your approval: create 'csv-cleanup'/)]);
    await vi.waitFor(() => expect(storage.published).toContainEqual({ type: 'pending-changed' }), { timeout: 2000 });
    expect((await app.pending.list()).map((write) => write.origin)).toEqual(['review']);
  });

  it('cancel stops a running review, which resolves as stopped', async () => {
    const { api, requests } = await handler([{ hang: true }]);
    const running = api.runReview(job('run-2'));
    await vi.waitFor(() => expect(requests).toHaveLength(1), { timeout: 2000 });
    await api.cancel('run-2');
    expect((await running).end).toBe('stopped');
  });

  it('runs the curator on request and on schedule, keeping its state in the settings service', async () => {
    const { api, app } = await handler([]);
    const dry = await api.runCurator({ dryRun: true });
    expect(dry.dryRun).toBe(true);
    // The first scheduled check only starts the clock.
    expect(await api.maybeRunCurator(Infinity)).toBeNull();
    const seeded = await app.curatorState.read();
    expect(seeded.runCount).toBe(0);
    expect(seeded.lastRunAt).not.toBeNull();
  });

  it('drafts the checks of a case with the review model: the skill and the request in one request, no tools', async () => {
    const { api, app, storage, seen, requests } = await handler([{ text: '```json\n{"checks": [{"type": "icontains", "value": "header"}]}\n```' }]);
    await storage.stores.settings.put('app', { baseUrl: 'http://server/v1', model: 'chat-model', reviewProvider: { baseUrl: '', model: 'review-model' } });
    const registry = await app.tools();
    expect((await registry.dispatchOutcome('skill_manage', { action: 'create', name: 'csv-cleanup', content: skillContent('csv-cleanup') }, createWriteContext('user'))).success).toBe(true);

    const draft = await api.draftChecks({ runId: 'draft-1', skill: 'csv-cleanup', prompt: 'The header row of this export is broken.' });
    expect(draft).toEqual({ success: true, checks: [{ type: 'icontains', value: 'header' }], expectedOutput: null, dropped: 0 });
    expect(seen).toEqual([expect.objectContaining({ model: 'review-model' })]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.tools).toBeUndefined();
    expect(requests[0]!.messages[1]!.content).toContain('name: csv-cleanup');
    expect(requests[0]!.messages[1]!.content).toContain('The header row of this export is broken.');

    expect(await api.draftChecks({ runId: 'draft-2', skill: 'no-such-skill', prompt: 'x' })).toEqual({ success: false, error: 'the skill "no-such-skill" has no SKILL.md' });
  });
});
