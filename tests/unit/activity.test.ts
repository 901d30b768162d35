import { describe, expect, it } from 'vitest';
import {
  NOTHING_TO_SAVE,
  curatorActivity,
  gateEndedActivity,
  gateRunningActivity,
  newestFirst,
  prettyJson,
  reviewActivity,
  reviewOutcomeText,
  reviewTrigger,
  toolCallSummary,
  withActivity,
  type ActivityRecord,
} from '../../src/review/activity';
import { ActivityLog } from '../../src/review/activityLog';
import type { ReviewRecord } from '../../src/review/reviewScheduler';
import type { ReviewOutcome } from '../../src/review/reviewRun';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import type { ChangeFeed, StorageChange } from '../../src/storage/changes';
import type { VerdictRecord } from '../../src/gate/types';
import { curatorStateStore, CURATOR_STATE_KEY } from '../../src/curator/curatorStateStore';

const outcome = (over: Partial<ReviewOutcome> = {}): ReviewOutcome => ({
  kind: 'skills',
  end: 'final',
  finalText: 'Created one skill.',
  toolCalls: [],
  notices: [],
  modelCalls: 3,
  ...over,
});

const record = (over: Partial<ReviewRecord> = {}): ReviewRecord => ({
  runId: 'r1',
  sessionId: 's1',
  kind: 'skills',
  trigger: '10 model calls without saving a skill',
  status: 'done',
  startedAt: 1000,
  endedAt: 4000,
  outcome: outcome(),
  ...over,
});

describe('reviewTrigger', () => {
  it('names the counter that ran out, with singular and plural words', () => {
    expect(reviewTrigger('skills', { itersSinceSkill: 10, turnsSinceMemory: 2 })).toBe('10 model calls without saving a skill');
    expect(reviewTrigger('memory', { itersSinceSkill: 3, turnsSinceMemory: 1 })).toBe('1 user turn without saving to memory');
    expect(reviewTrigger('combined', { itersSinceSkill: 12, turnsSinceMemory: 10 })).toBe(
      '12 model calls without saving a skill; 10 user turns without saving to memory',
    );
  });
});

describe('reviewOutcomeText', () => {
  it('keeps the review’s own final words', () => {
    expect(reviewOutcomeText(record())).toBe('Created one skill.');
  });
  it('says "Nothing to save." when the review ends without words', () => {
    expect(reviewOutcomeText(record({ outcome: outcome({ finalText: '  ' }) }))).toBe(NOTHING_TO_SAVE);
    expect(reviewOutcomeText(record({ outcome: outcome({ finalText: 'Nothing to save.' }) }))).toBe(NOTHING_TO_SAVE);
  });
  it('explains a cancelled, failed, unfinished or running review', () => {
    expect(reviewOutcomeText(record({ status: 'cancelled', outcome: outcome({ end: 'stopped', finalText: null }) }))).toMatch(/^Cancelled: a new message/);
    expect(reviewOutcomeText(record({ status: 'failed', outcome: undefined, error: 'HTTP 500' }))).toBe('Failed: HTTP 500. The chat was not affected.');
    expect(reviewOutcomeText(record({ outcome: outcome({ end: 'iteration-limit', finalText: null, modelCalls: 16 }) }))).toBe(
      'Stopped after 16 model calls without a final answer.',
    );
    expect(reviewOutcomeText(record({ status: 'running', outcome: undefined, endedAt: undefined }))).toMatch(/^Reviewing/);
  });
});

describe('reviewActivity', () => {
  it('carries trigger, tool calls with results, notices and timings', () => {
    const calls = [{ name: 'skill_manage', arguments: '{"action":"create","name":"x"}', result: '{"success":true}', success: true }];
    const activity = reviewActivity(record({ outcome: outcome({ toolCalls: calls, notices: ['Learned: skill `x` created — unverified'] }) }));
    expect(activity).toEqual({
      kind: 'review',
      id: 'r1',
      sessionId: 's1',
      review: 'skills',
      trigger: '10 model calls without saving a skill',
      status: 'done',
      startedAt: 1000,
      endedAt: 4000,
      toolCalls: calls,
      outcome: 'Created one skill.',
      notices: ['Learned: skill `x` created — unverified'],
      modelCalls: 3,
    });
  });
  it('has no end time and no calls while running', () => {
    const activity = reviewActivity(record({ status: 'running', outcome: undefined, endedAt: undefined }));
    expect(activity.endedAt).toBeUndefined();
    expect(activity.toolCalls).toEqual([]);
    expect('endedAt' in activity).toBe(false);
  });
});

describe('curatorActivity', () => {
  const base = { id: 'c1', mode: 'dry-run' as const, startedAt: 5 };
  it('starts as running, then carries the transitions and summary', () => {
    expect(curatorActivity(base, null)).toMatchObject({ kind: 'curator', status: 'running', transitions: [] });
    const run = { dryRun: true, transitions: [{ name: 'a', from: 'active' as const, to: 'stale' as const }], summary: 'dry-run auto: 1 stale', startedAt: '2030-01-01T00:00:00.000Z' };
    expect(curatorActivity(base, { run, endedAt: 9 })).toMatchObject({
      status: 'done',
      endedAt: 9,
      runAt: '2030-01-01T00:00:00.000Z',
      transitions: run.transitions,
      outcome: 'dry-run auto: 1 stale',
      trigger: expect.stringMatching(/^Dry run/),
    });
  });
  it('records a failure with its message', () => {
    expect(curatorActivity({ ...base, mode: 'scheduled' }, { error: 'worker gone', endedAt: 7 })).toMatchObject({ status: 'failed', error: 'worker gone', outcome: 'Failed: worker gone' });
  });
});

describe('ordering', () => {
  const at = (id: string, startedAt: number): ActivityRecord => reviewActivity(record({ runId: id, startedAt }));
  it('lists newest first and replaces a record with the same id', () => {
    const list = newestFirst([at('a', 1), at('c', 3), at('b', 2)]);
    expect(list.map((r) => r.id)).toEqual(['c', 'b', 'a']);
    const updated = withActivity(list, { ...at('b', 2), status: 'failed' });
    expect(updated.map((r) => [r.id, r.status])).toEqual([
      ['c', 'done'],
      ['b', 'failed'],
      ['a', 'done'],
    ]);
    expect(withActivity(list, at('d', 4)).map((r) => r.id)).toEqual(['d', 'c', 'b', 'a']);
  });
});

describe('tool call display', () => {
  it('summarises a call by tool, action and target, with the error of a failed one', () => {
    expect(toolCallSummary({ name: 'skill_manage', arguments: '{"action":"patch","name":"mine","file_path":"SKILL.md"}', result: '{"success":false,"error":"Not yours."}', success: false })).toBe(
      'skill_manage patch mine SKILL.md — Not yours.',
    );
    expect(toolCallSummary({ name: 'memory', arguments: '{"action":"add","target":"user"}', result: '{"success":true,"staged":true}', success: true })).toBe(
      'memory add user — staged for approval',
    );
    expect(toolCallSummary({ name: 'skills_list', arguments: '', result: '{"success":true}', success: true })).toBe('skills_list — ok');
    expect(toolCallSummary({ name: 'x', arguments: '{broken', result: 'not json', success: false })).toBe('x — failed');
  });
  it('indents JSON and leaves anything else alone', () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('{broken')).toBe('{broken');
  });
});

describe('ActivityLog', () => {
  it('stores runs, publishes each write and keeps the newest `keep`', async () => {
    const published: StorageChange[] = [];
    const feed = { publish: (change: StorageChange) => published.push(change) } as unknown as ChangeFeed;
    const log = new ActivityLog(new MemoryRecordStore<ActivityRecord>(), feed, 2);
    for (const [id, startedAt] of [['a', 1], ['b', 2], ['c', 3]] as const) await log.put(reviewActivity(record({ runId: id, startedAt })));
    expect(published).toEqual(['a', 'b', 'c'].map((id) => ({ type: 'activity-changed', id })));
    expect((await log.list()).map((r) => r.id)).toEqual(['c', 'b', 'a']);
    expect(await log.prune()).toBe(1);
    expect((await log.list()).map((r) => r.id)).toEqual(['c', 'b']);
    expect(await log.get('a')).toBeUndefined();
  });
});

describe('curatorStateStore', () => {
  it('keeps the curator schedule under its own key in the settings store', async () => {
    const settings = new MemoryRecordStore<unknown>();
    await settings.put('curator', { userSetting: true });
    const store = curatorStateStore(settings);
    expect(await store.get('curator')).toBeUndefined();
    await store.put('curator', { lastRunAt: '2030-01-01T00:00:00.000Z', runCount: 1, lastSummary: 'auto: no changes' });
    expect(await settings.get(CURATOR_STATE_KEY)).toEqual({ lastRunAt: '2030-01-01T00:00:00.000Z', runCount: 1, lastSummary: 'auto: no changes' });
    expect(await settings.get('curator')).toEqual({ userSetting: true });
  });
});

describe('gate activity', () => {
  const base = { id: 'g1', skill: 'csv-cleanup', trigger: 'changed' as const, startedAt: 100 };

  it('starts as running with nothing spent', () => {
    expect(gateRunningActivity(base)).toEqual({ kind: 'gate', ...base, status: 'running', requests: 0, cacheHits: 0, outcome: 'Verifying csv-cleanup…' });
  });

  it('copies the verdict words of the stored record into a done run', () => {
    const record = { id: 'r1', verdict: { verdict: 'rejected', code: 'REJECTED_HURTS', sub: null, reason: 'Rejected: held-out answers got worse.' } } as unknown as VerdictRecord;
    const done = gateEndedActivity(base, { kind: 'done', record, applied: true, superseded: false, verdictChanged: true, requests: 8, cacheHits: 2 }, 200);
    expect(done).toMatchObject({
      status: 'done',
      endedAt: 200,
      verdict: { verdict: 'rejected', code: 'REJECTED_HURTS', reason: 'Rejected: held-out answers got worse.' },
      recordId: 'r1',
      superseded: false,
      requests: 8,
      cacheHits: 2,
      outcome: 'rejected: Rejected: held-out answers got worse.',
    });
  });

  it('says how far a cancelled run got and why a run failed, with what it had spent', () => {
    const progress = { casesDone: 3, casesTotal: 8, requests: 6, cacheHits: 1 };
    expect(gateEndedActivity(base, { kind: 'cancelled', pairsDone: 3, pairsTotal: 8 }, 200, progress)).toMatchObject({
      status: 'cancelled',
      outcome: 'Cancelled after 3/8 pairs; no verdict written',
      requests: 6,
      cacheHits: 1,
    });
    const failed = gateEndedActivity(base, { kind: 'failed', error: 'No gate provider.' }, 200);
    expect(failed).toMatchObject({ status: 'failed', error: 'No gate provider.', outcome: 'Failed: No gate provider.', requests: 0 });
    expect(failed.verdict).toBeUndefined();
  });
});
