import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReviewWorkerHandler } from '../../src/app/reviewWorkerHandler';
import type { AppServices } from '../../src/app/appServices';
import { learningIntervals, reviewProvider } from '../../src/app/settings';
import { IdleClock, LearningLoop, canReview, inThreadBackend, type LearningBackend, type TurnReport } from '../../src/review/learningLoop';
import type { ActivityRecord, ReviewActivity } from '../../src/review/activity';
import { fakeProvider, type FakeTurn } from './helpers/fakeProvider';
import { memoryAppServices } from './helpers/memoryAppServices';
import { skillContent } from './helpers/skillTestEngine';

const opened: AppServices[] = [];
afterEach(() => {
  for (const app of opened.splice(0)) app.changes.close();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A loop on in-memory app services, its backend the worker handler running in this thread. */
async function loopWith(turns: FakeTurn[], options: { provider?: boolean } = {}) {
  const { app } = await memoryAppServices('worker');
  opened.push(app);
  if (options.provider !== false) await app.settings.update('app', { baseUrl: 'http://server/v1', model: 'm' });
  else await app.settings.update('app', { baseUrl: '', model: '' });
  const fake = fakeProvider(turns);
  const handler = createReviewWorkerHandler(async () => app, { createProvider: async () => fake.provider });
  const backends: LearningBackend[] = [];
  const written: ActivityRecord[] = [];
  const pendingNotified: number[] = [];
  const idle = new IdleClock();
  const loop = new LearningLoop({
    createBackend: async () => {
      const backend = inThreadBackend(handler);
      backends.push(backend);
      return backend;
    },
    activity: {
      put: async (record) => {
        written.push(record);
        await app.activity.put(record);
      },
    },
    curatorState: app.curatorState,
    reviewProvider: () => reviewProvider(app.settings),
    intervals: () => learningIntervals(app.settings),
    notifyPendingChanged: () => pendingNotified.push(1),
    idle,
  });
  return { app, loop, backends, written, pendingNotified, idle, requests: fake.requests };
}

function report(overrides: Partial<TurnReport> = {}): TurnReport {
  return {
    sessionId: 's1',
    messages: [
      { role: 'user', content: 'Clean up this CSV export.' },
      { role: 'assistant', content: 'Done.' },
    ],
    systemPrompt: 'SYS',
    counters: { itersSinceSkill: 10, turnsSinceMemory: 1 },
    end: 'final',
    finalReply: 'Done.',
    ...overrides,
  };
}

const reviewRecords = (written: ActivityRecord[]) => written.filter((r): r is ReviewActivity => r.kind === 'review');

describe('LearningLoop', () => {
  it('schedules one review when the skill counter reaches its interval, records running then done in order, and keeps the notice', async () => {
    const { loop, written, backends, app } = await loopWith([
      { toolCalls: [{ name: 'skill_manage', arguments: JSON.stringify({ action: 'create', name: 'csv-cleanup', content: skillContent('csv-cleanup') }) }] },
      { text: 'Saved.' },
    ]);
    const counters = loop.afterTurn(report());
    expect(counters.itersSinceSkill).toBe(0);
    expect(loop.isReviewing('s1')).toBe(true);
    expect(loop.running).toBe(1);
    await vi.waitFor(() => expect(loop.isReviewing('s1')).toBe(false), { timeout: 5000 });
    await loop.settled();
    expect(reviewRecords(written).map((r) => r.status)).toEqual(['running', 'done']);
    expect(loop.running).toBe(0);
    expect(loop.notices).toEqual([expect.objectContaining({ sessionId: 's1', text: 'Learned: skill `csv-cleanup` created — unverified' })]);
    expect(backends).toHaveLength(1);
    expect((await app.activity.list()).map((r) => r.status)).toEqual(['done']);
    loop.dismissNotice(loop.notices[0]!.id);
    expect(loop.notices).toEqual([]);
  });

  it('sends a review a bounded transcript of a tool storm, and reads the messages only when it schedules one', async () => {
    const { loop, requests } = await loopWith([{ text: 'Nothing worth keeping.' }]);
    const calls = Array.from({ length: 200 }, (_, i) => ({ id: `c${i}`, name: 'skills_list', arguments: '{}' }));
    const storm = [
      { role: 'user' as const, content: 'storm' },
      { role: 'assistant' as const, content: '', toolCalls: calls },
      ...calls.map((call) => ({ role: 'tool' as const, content: '{"success":true}', toolCallId: call.id, name: 'skills_list' })),
      { role: 'assistant' as const, content: 'Done.' },
    ];
    let reads = 0;
    const lazy = (counters: TurnReport['counters']): TurnReport => {
      const base = report({ counters });
      return Object.defineProperty(base, 'messages', { get: () => (reads++, storm) });
    };
    loop.afterTurn(lazy({ itersSinceSkill: 1, turnsSinceMemory: 1 }));
    expect(reads).toBe(0);
    loop.afterTurn(lazy({ itersSinceSkill: 10, turnsSinceMemory: 1 }));
    expect(reads).toBe(1);
    await vi.waitFor(() => expect(requests).toHaveLength(1), { timeout: 5000 });
    const sent = requests[0]!.messages;
    expect(sent.filter((m) => m.role === 'tool')).toHaveLength(8);
    expect(sent.find((m) => m.role === 'assistant')!.content).toContain('192 more tool calls');
    await vi.waitFor(() => expect(loop.isReviewing('s1')).toBe(false), { timeout: 5000 });
  });

  it('schedules nothing below the interval, and creates no backend', async () => {
    const { loop, backends } = await loopWith([]);
    const counters = loop.afterTurn(report({ counters: { itersSinceSkill: 2, turnsSinceMemory: 1 } }));
    expect(counters).toEqual({ itersSinceSkill: 2, turnsSinceMemory: 1 });
    expect(loop.isReviewing('s1')).toBe(false);
    expect(backends).toHaveLength(0);
  });

  it('starts no review when there is nothing to talk to', async () => {
    const { loop, backends } = await loopWith([], { provider: false });
    loop.afterTurn(report());
    expect(loop.isReviewing('s1')).toBe(false);
    expect(backends).toHaveLength(0);
    expect(canReview({ kind: 'webgpu', baseUrl: '', apiKey: '', model: ' ', toolProtocol: 'auto' })).toBe(false);
  });

  it('tells the Pending views when the review staged a write, from the outcome fields', async () => {
    const { loop, app, pendingNotified } = await loopWith([
      { toolCalls: [{ name: 'skill_manage', arguments: JSON.stringify({ action: 'create', name: 'csv-cleanup', content: skillContent('csv-cleanup') }) }] },
      { text: 'Staged.' },
    ]);
    await app.settings.update('skills', { writeApproval: 'all' });
    loop.afterTurn(report());
    await vi.waitFor(() => expect(loop.isReviewing('s1')).toBe(false), { timeout: 5000 });
    expect(pendingNotified).toEqual([1]);
    expect(loop.notices.map((n) => n.text)).toEqual([expect.stringMatching(/^Staged for your approval: create 'csv-cleanup'/)]);
  });

  it('a new user turn cancels the running review, which is recorded as cancelled', async () => {
    const { loop, written, requests } = await loopWith([{ hang: true }]);
    loop.afterTurn(report());
    await vi.waitFor(() => expect(requests).toHaveLength(1), { timeout: 5000 });
    loop.beforeUserTurn('s1');
    expect(loop.isReviewing('s1')).toBe(false);
    await vi.waitFor(() => expect(reviewRecords(written).map((r) => r.status)).toEqual(['running', 'cancelled']), { timeout: 5000 });
  });

  it('the curator check seeds the clock first, then runs only after 7 days and 2 idle hours', async () => {
    const { loop, app, written, idle } = await loopWith([]);
    idle.noteInput(Date.now() - 3 * HOUR);
    expect(await loop.checkCurator()).toBeNull();
    const seeded = await app.curatorState.read();
    expect(seeded.runCount).toBe(0);
    expect(seeded.lastRunAt).not.toBeNull();
    expect(await loop.checkCurator()).toBeNull();

    // Eight days later, but someone typed 10 minutes ago: no run.
    await app.curatorState.write({ ...seeded, lastRunAt: new Date(Date.now() - 8 * DAY).toISOString() });
    idle.noteInput(Date.now() - 10 * 60_000);
    expect(await loop.checkCurator()).toBeNull();

    // Idle for 3 hours: it runs in the backend and is recorded as a scheduled run.
    idle.noteInput(Date.now() - 3 * HOUR);
    expect(await loop.checkCurator()).toMatchObject({ kind: 'curator', mode: 'scheduled', status: 'done' });
    expect((await app.curatorState.read()).runCount).toBe(1);
    await loop.settled();
    expect(written.map((r) => [r.kind, r.status])).toEqual([['curator', 'done']]);
    expect(await loop.checkCurator()).toBeNull();
  });

  it('records a curator run on request as running, then done', async () => {
    const { loop, written } = await loopWith([]);
    const activity = await loop.runCurator({ dryRun: true });
    expect(activity).toMatchObject({ kind: 'curator', mode: 'dry-run', status: 'done' });
    await loop.settled();
    expect(written.map((r) => r.status)).toEqual(['running', 'done']);
    expect(loop.running).toBe(0);
  });
});

describe('IdleClock', () => {
  it('counts from the latest input of this tab or the shared store, and writes the store at most every 30 s', () => {
    let shared: number | null = null;
    const writes: number[] = [];
    const clock = new IdleClock({ read: () => shared, write: (at) => writes.push((shared = at)) });
    expect(clock.idleMs(1_000_000)).toBe(Infinity);
    clock.noteInput(1_000_000);
    clock.noteInput(1_010_000);
    expect(writes).toEqual([1_000_000]);
    expect(clock.idleMs(1_020_000)).toBe(10_000);
    shared = 1_015_000; // another tab saw input later
    expect(clock.idleMs(1_020_000)).toBe(5_000);
  });
});
