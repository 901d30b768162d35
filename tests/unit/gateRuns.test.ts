import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GateRuns, localDay, remoteHost, type GateBackend, type GateRunsDeps } from '../../src/review/gateRuns';
import { IdleClock, LearningLoop, inThreadBackend } from '../../src/review/learningLoop';
import type { ActivityRecord, GateActivity } from '../../src/review/activity';
import type { GateJob, GateJobOutcome, ReviewWorkerApi } from '../../src/review/reviewWorkerApi';
import { CANCEL_GRACE_MS } from '../../src/review/reviewScheduler';
import { AUTO_RUN_DEBOUNCE_MS, AUTO_RUN_IDLE_MS, DEFAULT_GATE_SETTINGS, type GateSettings } from '../../src/gate/gateSettings';
import type { GateProgress, VerdictRecord } from '../../src/gate/types';
import type { ProviderSettings } from '../../src/providers/createProvider';
import type { StorageChange } from '../../src/storage/changes';
import { gateRunLockKey, tryHoldLock } from '../../src/storage/webLocks';

const SEC = 1000;
const LOCAL: ProviderSettings = { kind: 'openai-compatible', baseUrl: 'http://localhost:8080/v1', apiKey: '', model: 'm' } as ProviderSettings;
const REMOTE: ProviderSettings = { kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', apiKey: '', model: 'm' } as ProviderSettings;

function doneOutcome(overrides: Partial<Extract<GateJobOutcome, { kind: 'done' }>> = {}): GateJobOutcome {
  const record = {
    id: 'record-1',
    verdict: { verdict: 'promoted', code: 'PROMOTED', sub: null, reason: 'Promoted: held-out cases improved in 5 of 6 pairs.' },
  } as unknown as VerdictRecord;
  return { kind: 'done', record, applied: true, superseded: false, verdictChanged: true, requests: 12, cacheHits: 4, ...overrides };
}

/** Scripted gate runs: each job waits until the test answers it (or answers at once). */
function scriptedBackend(answer?: (job: GateJob) => GateJobOutcome | Promise<GateJobOutcome>) {
  const jobs: GateJob[] = [];
  const cancels: string[] = [];
  const answers = new Map<string, (outcome: GateJobOutcome) => void>();
  const progress = new Map<string, (progress: GateProgress) => void>();
  const backend: GateBackend = {
    runGate(job, onProgress) {
      jobs.push(job);
      if (onProgress) progress.set(job.runId, onProgress);
      if (answer) return Promise.resolve(answer(job));
      return new Promise((resolve) => answers.set(job.runId, resolve));
    },
    async cancel(runId) {
      cancels.push(runId);
    },
  };
  return {
    backend,
    jobs,
    cancels,
    answer: (job: GateJob, outcome: GateJobOutcome) => answers.get(job.runId)!(outcome),
    progress: (job: GateJob, value: Omit<GateProgress, 'runId' | 'skill'>) => progress.get(job.runId)!({ runId: job.runId, skill: job.skill, ...value }),
  };
}

/** Lets the promise chains that follow a timer or an answer run (no clock moves). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !condition(); i++) await Promise.resolve();
  expect(condition()).toBe(true);
}

function gateWith(
  options: {
    settings?: Partial<GateSettings>;
    provider?: ProviderSettings;
    cases?: number | null;
    backend?: ReturnType<typeof scriptedBackend>;
    claim?: GateRunsDeps['claimAutomaticRun'];
  } = {},
) {
  const scripted = options.backend ?? scriptedBackend();
  const written: GateActivity[] = [];
  const listeners = new Set<(change: StorageChange) => void>();
  let settings: GateSettings = { ...DEFAULT_GATE_SETTINGS, ...options.settings };
  const updates: Partial<GateSettings>[] = [];
  let lastInput = -Infinity;
  const resets: number[] = [];
  const deps: GateRunsDeps = {
    backend: async () => scripted.backend,
    resetBackend: () => resets.push(1),
    record: (activity) => written.push(activity),
    gateSettings: () => settings,
    updateGateSettings: async (change) => {
      const fields = typeof change === 'function' ? change(settings) : change;
      updates.push(fields);
      settings = { ...settings, ...fields };
    },
    gateProvider: () => options.provider ?? LOCAL,
    idleMs: () => Date.now() - lastInput,
    subscribeChanges: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    countCases: async () => (options.cases === undefined ? 6 : options.cases),
    now: () => Date.now(),
    claimAutomaticRun: options.claim,
  };
  const runs = new GateRuns(deps);
  return {
    runs,
    ...scripted,
    written,
    updates,
    resets,
    settings: () => settings,
    input: () => (lastInput = Date.now()),
    change: (name: string, action: string) => {
      for (const listener of listeners) listener({ type: 'skill-changed', name, dir: `skills/${name}`, action });
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date(2026, 11, 1, 12, 0, 0));
});
afterEach(() => {
  vi.useRealTimers();
});

describe('GateRuns: Verify', () => {
  it('records running then done, with the verdict words, requests and cache hits copied from the outcome', async () => {
    const gate = gateWith();
    const pending = gate.runs.verify('csv-cleanup');
    expect(gate.runs.isVerifying('csv-cleanup')).toBe(true);
    await until(() => gate.jobs.length === 1);
    expect(gate.jobs[0]).toMatchObject({ skill: 'csv-cleanup', policy: 'standard' });
    expect((gate.jobs[0] as GateJob & { automatic?: boolean }).automatic).toBeUndefined();
    gate.answer(gate.jobs[0], doneOutcome());
    const activity = await pending;
    expect(gate.written.map((record) => record.status)).toEqual(['running', 'done']);
    expect(gate.written[0].id).toBe(gate.written[1].id);
    expect(activity).toMatchObject({
      kind: 'gate',
      skill: 'csv-cleanup',
      trigger: 'manual',
      status: 'done',
      verdict: { verdict: 'promoted', code: 'PROMOTED', reason: 'Promoted: held-out cases improved in 5 of 6 pairs.' },
      recordId: 'record-1',
      superseded: false,
      requests: 12,
      cacheHits: 4,
      outcome: 'promoted: Promoted: held-out cases improved in 5 of 6 pairs.',
    });
    expect(gate.runs.isVerifying('csv-cleanup')).toBe(false);
  });

  it('says when a finished run was superseded, and "Verify again without cache" sends useCache false', async () => {
    const gate = gateWith({ backend: scriptedBackend(() => doneOutcome({ superseded: true, applied: false })) });
    const activity = await gate.runs.verify('csv-cleanup', { useCache: false });
    expect(gate.jobs[0].useCache).toBe(false);
    expect(activity.trigger).toBe('manual-no-cache');
    expect(activity.superseded).toBe(true);
    expect(activity.outcome).toMatch(/^promoted: .*superseded/);
  });

  it('records a failed outcome and a backend that throws as failed', async () => {
    let call = 0;
    const gate = gateWith({
      backend: scriptedBackend(() => {
        call++;
        if (call === 1) return { kind: 'failed', error: 'The gate provider answered 500.' };
        throw new Error('worker crashed');
      }),
    });
    const first = await gate.runs.verify('a');
    const second = await gate.runs.verify('a');
    expect(first).toMatchObject({ status: 'failed', outcome: 'Failed: The gate provider answered 500.', error: 'The gate provider answered 500.' });
    expect(second).toMatchObject({ status: 'failed', outcome: 'Failed: worker crashed' });
    expect(gate.written.map((record) => record.status)).toEqual(['running', 'failed', 'running', 'failed']);
  });

  it('runs one run per skill: a second Verify returns the running one; progress is reported, then null', async () => {
    const gate = gateWith();
    const seen: (GateProgress | null)[] = [];
    gate.runs.onGateProgress((skill, progress) => seen.push(progress));
    const first = gate.runs.verify('a');
    const second = gate.runs.verify('a');
    await until(() => gate.jobs.length === 1);
    gate.progress(gate.jobs[0], { phase: 'dev', casesDone: 1, casesTotal: 4, requests: 2, cacheHits: 0 });
    gate.answer(gate.jobs[0], doneOutcome());
    expect(await first).toBe(await second);
    expect(gate.jobs).toHaveLength(1);
    expect(seen.map((progress) => progress?.casesDone ?? null)).toEqual([1, null]);
    expect(gate.runs.verifying()).toEqual([]);
  });

  it('cancels by run id; an acknowledged cancel records "Cancelled after n/m pairs" and no reset', async () => {
    const gate = gateWith();
    const pending = gate.runs.verify('a');
    await until(() => gate.jobs.length === 1);
    const job = gate.jobs[0];
    const cancelled = gate.runs.cancelVerify('a');
    await until(() => gate.cancels.length === 1);
    expect(gate.cancels).toEqual([job.runId]);
    gate.answer(job, { kind: 'cancelled', pairsDone: 3, pairsTotal: 8 });
    await cancelled;
    expect(await pending).toMatchObject({ status: 'cancelled', outcome: 'Cancelled after 3/8 pairs; no verdict written' });
    expect(gate.written.map((record) => record.status)).toEqual(['running', 'cancelled']);
    expect(gate.resets).toEqual([]);
  });

  it('resets the backend when a cancel is not acknowledged within the grace period, and records the run as cancelled', async () => {
    const gate = gateWith();
    const pending = gate.runs.verify('a');
    await until(() => gate.jobs.length === 1);
    gate.progress(gate.jobs[0], { phase: 'dev', casesDone: 2, casesTotal: 5, requests: 4, cacheHits: 1 });
    const cancelled = gate.runs.cancelVerify('a');
    await vi.advanceTimersByTimeAsync(CANCEL_GRACE_MS);
    await cancelled;
    expect(gate.resets).toEqual([1]);
    expect(await pending).toMatchObject({ status: 'cancelled', outcome: 'Cancelled after 2/5 pairs; no verdict written', requests: 4, cacheHits: 1 });
    expect(gate.runs.isVerifying('a')).toBe(false);
    // The worker answering late changes nothing.
    gate.answer(gate.jobs[0], doneOutcome());
    await Promise.resolve();
    expect(gate.written.map((record) => record.status)).toEqual(['running', 'cancelled']);
  });
});

describe('GateRuns: automatic runs', () => {
  it('debounces writes: two writes 10 s apart start one run 30 s after the second', async () => {
    const gate = gateWith();
    gate.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(10 * SEC);
    gate.change('a', 'write_file');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS - 1);
    expect(gate.runs.isVerifying('a')).toBe(false);
    expect(gate.runs.isPending('a')).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(gate.runs.isVerifying('a')).toBe(true);
    await until(() => gate.jobs.length === 1);
    expect(gate.jobs[0]).toMatchObject({ skill: 'a', automatic: true, budget: { maxRequests: DEFAULT_GATE_SETTINGS.dailyCap } });
    expect(gate.written[0]).toMatchObject({ status: 'running', trigger: 'changed' });
    await vi.advanceTimersByTimeAsync(10 * AUTO_RUN_DEBOUNCE_MS);
    expect(gate.jobs).toHaveLength(1);
  });

  it('waits for idle time: input 20 s before the run is due holds it until a minute without input', async () => {
    const gate = gateWith();
    gate.change('a', 'edit');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS - 20 * SEC);
    gate.input();
    await vi.advanceTimersByTimeAsync(20 * SEC);
    expect(gate.runs.isVerifying('a')).toBe(false);
    await vi.advanceTimersByTimeAsync(AUTO_RUN_IDLE_MS - 20 * SEC - 1);
    expect(gate.runs.isVerifying('a')).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(gate.runs.isVerifying('a')).toBe(true);
    expect(gate.written[0].trigger).toBe('changed');
  });

  it('waits while a foreground generation is active and starts when it ends', async () => {
    const gate = gateWith();
    gate.runs.noteGeneration(true);
    gate.change('a', 'create');
    await vi.advanceTimersByTimeAsync(5 * AUTO_RUN_DEBOUNCE_MS);
    expect(gate.runs.isVerifying('a')).toBe(false);
    expect(gate.runs.isPending('a')).toBe(true);
    gate.runs.noteGeneration(false);
    expect(gate.runs.isVerifying('a')).toBe(true);
  });

  it('asks once before running against a host that was not allowed, and runs after allowAutomatic', async () => {
    const gate = gateWith({ provider: REMOTE, cases: 6 });
    const asked: unknown[] = [];
    gate.runs.onPermission((request) => asked.push(request));
    gate.change('a', 'patch');
    gate.change('b', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    await until(() => gate.runs.pendingPermission?.estimateRequests === 12);
    expect(gate.runs.pendingPermission).toEqual({ host: 'api.example.com', estimateRequests: 12 });
    expect(gate.jobs).toEqual([]);
    expect(gate.runs.isVerifying('a') || gate.runs.isVerifying('b')).toBe(false);
    await gate.runs.allowAutomatic('api.example.com');
    expect(gate.updates).toContainEqual({ allowedHosts: ['api.example.com'] });
    expect(gate.runs.pendingPermission).toBeNull();
    expect(gate.runs.verifying().sort()).toEqual(['a', 'b']);
    expect(asked.at(-1)).toBeNull();
  });

  it('runs at once against an allowed host; a declined host drops the waiting runs', async () => {
    const allowed = gateWith({ provider: REMOTE, settings: { allowedHosts: ['api.example.com'] } });
    allowed.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(allowed.runs.isVerifying('a')).toBe(true);
    expect(allowed.runs.pendingPermission).toBeNull();

    const declined = gateWith({ provider: REMOTE });
    declined.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(declined.runs.pendingPermission?.host).toBe('api.example.com');
    declined.runs.declineAutomatic();
    expect(declined.runs.isPending('a')).toBe(false);
    declined.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(declined.runs.pendingPermission).toBeNull();
    expect(declined.jobs).toEqual([]);
  });

  it('skips automatic runs once today\u2019s cap is used, and counts only today\u2019s usage', async () => {
    const today = localDay(Date.now());
    const capped = gateWith({ settings: { dailyCap: 50, usage: { day: today, requests: 50 } } });
    capped.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(capped.runs.isVerifying('a')).toBe(false);
    expect(capped.runs.isPending('a')).toBe(false);
    expect(capped.written).toEqual([]);
    // Manual Verify is never capped.
    void capped.runs.verify('a');
    expect(capped.runs.isVerifying('a')).toBe(true);

    const yesterday = gateWith({ settings: { dailyCap: 50, usage: { day: '2026-11-30', requests: 50 } } });
    yesterday.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    await until(() => yesterday.jobs.length === 1);
    expect(yesterday.jobs[0].budget).toEqual({ maxRequests: 50 });
  });

  it('does not run when automatic verification is off', async () => {
    const gate = gateWith({ settings: { automatic: false } });
    gate.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(gate.runs.isVerifying('a')).toBe(false);
    expect(gate.runs.isPending('a')).toBe(false);
  });

  it('ignores verdict, approve, pin and archive events (no loop), and a delete drops a waiting run', async () => {
    const gate = gateWith();
    for (const action of ['verdict', 'approve', 'pin', 'unpin', 'restore', 'curator:stale']) gate.change('a', action);
    expect(gate.runs.isPending('a')).toBe(false);
    gate.change('b', 'patch');
    gate.change('b', 'delete');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(gate.jobs).toEqual([]);
    expect(gate.written).toEqual([]);
  });

  it('queues an import only when it brought cases', async () => {
    const withCases = gateWith({ cases: 4 });
    withCases.change('a', 'import');
    await until(() => withCases.runs.isPending('a'));
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(withCases.written[0]).toMatchObject({ trigger: 'import', status: 'running' });

    const without = gateWith({ cases: null });
    without.change('a', 'import');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(without.runs.isPending('a')).toBe(false);
    expect(without.written).toEqual([]);
  });

  it('a write during a run leaves one pending run that starts after the running one ends', async () => {
    const gate = gateWith();
    const first = gate.runs.verify('a');
    await until(() => gate.jobs.length === 1);
    gate.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    expect(gate.jobs).toHaveLength(1);
    gate.answer(gate.jobs[0], doneOutcome());
    await first;
    expect(gate.runs.isVerifying('a')).toBe(true);
    expect(gate.written.map((record) => `${record.trigger}:${record.status}`)).toEqual(['manual:running', 'manual:done', 'changed:running']);
  });

  it('knows which providers are off this machine', () => {
    expect(remoteHost(LOCAL)).toBeNull();
    expect(remoteHost({ ...LOCAL, kind: 'webgpu', baseUrl: '' } as ProviderSettings)).toBeNull();
    expect(remoteHost(REMOTE)).toBe('api.example.com');
  });
});

describe('LearningLoop gate runs', () => {
  it('forwards Verify through the in-thread backend and stores the records in order', async () => {
    vi.useRealTimers();
    const api = { runGate: async (job: GateJob) => doneOutcome({ requests: job.useCache === false ? 16 : 2 }), cancel: async () => undefined } as unknown as ReviewWorkerApi;
    const stored: ActivityRecord[] = [];
    const loop = new LearningLoop({
      createBackend: async () => inThreadBackend(api),
      activity: { put: async (record) => void stored.push(record) },
      curatorState: { read: async () => ({}) as never, write: async () => undefined },
      reviewProvider: () => LOCAL,
      intervals: () => ({ creationNudgeInterval: 10, memoryNudgeInterval: 10 }),
      notifyPendingChanged: () => undefined,
      idle: new IdleClock(),
    });
    const activity = await loop.verify('a', { useCache: false });
    await loop.settled();
    expect(activity.requests).toBe(16);
    expect(stored.map((record) => `${record.kind}:${record.status}`)).toEqual(['gate:running', 'gate:done']);
    expect(loop.isVerifying('a')).toBe(false);
    loop.dispose();
  });
});

/** The Web Locks semantics tryHoldLock relies on (exclusive, ifAvailable), shared by "tabs". */
function sharedLocks() {
  const held = new Set<string>();
  return {
    held,
    async request(name: string, options: { ifAvailable?: boolean }, callback: (lock: { name: string } | null) => Promise<unknown>) {
      if (held.has(name)) {
        expect(options.ifAvailable).toBe(true);
        return callback(null);
      }
      held.add(name);
      try {
        return await callback({ name });
      } finally {
        held.delete(name);
      }
    },
  } as unknown as LockManager & { held: Set<string> };
}

describe('GateRuns: two tabs, one automatic run', () => {
  it('tryHoldLock takes a free lock, reports a held one as null, and frees it on release', async () => {
    const locks = sharedLocks();
    const release = await tryHoldLock('k', locks);
    expect(release).toBeTypeOf('function');
    expect(await tryHoldLock('k', locks)).toBeNull();
    release!();
    await until(() => !locks.held.has('k'));
    expect(await tryHoldLock('k', locks)).toBeTypeOf('function');
  });

  it('the tab that claims first runs; the other drops its run of the same write; the next write runs again', async () => {
    const locks = sharedLocks();
    const claim = (skill: string) => tryHoldLock(gateRunLockKey(skill), locks);
    const tabA = gateWith({ claim });
    const tabB = gateWith({ claim });
    tabA.change('a', 'patch');
    tabB.change('a', 'patch');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    await until(() => tabA.jobs.length + tabB.jobs.length === 1 && !tabB.runs.isPending('a'));
    expect(tabA.jobs).toHaveLength(1);
    expect(tabB.jobs).toHaveLength(0);
    expect(tabB.written).toEqual([]);
    expect(locks.held.has(gateRunLockKey('a'))).toBe(true);
    tabA.answer(tabA.jobs[0], doneOutcome());
    await until(() => !locks.held.has(gateRunLockKey('a')));
    tabB.change('a', 'edit');
    await vi.advanceTimersByTimeAsync(AUTO_RUN_DEBOUNCE_MS);
    await until(() => tabB.jobs.length === 1);
  });
});
