/**
 * The tab's learning loop (src/review/learningLoop.ts) wired to the tab's services: the review
 * worker as its backend (comlink and the worker chunk load on the first run), the settings
 * service for the review provider and the intervals, the activity log, the curator record,
 * and for the gate (docs/gate.md, "Triggers") the change feed, the skills' case files and the
 * gate settings. The idle clock comes from the UI, which feeds it with input events.
 */
import { parseEvalsFile } from '../gate/evalCases';
import { EVALS_FILE } from '../gate/gateJob';
import { providerModelKey } from '../gate/modelKey';
import { hasFreshVerdict } from '../skills/modelVerdicts';
import type { GateSettings } from '../gate/gateSettings';
import type { ProviderSettings } from '../providers/createProvider';
import { LearningLoop, type IdleClock } from '../review/learningLoop';
import { gateRunLockKey, tryHoldLock } from '../storage/webLocks';
import type { SettingChange } from '../storage/settingsService';
import type { AppServices } from './appServices';
import { gateProvider, learningIntervals, reviewProvider } from './settings';
import { watchMemoryConsolidation } from './memoryConsolidationServices';

/** The gate settings for the loop (the settings service's `gate` key unless a test passes its own). */
export interface GateSettingsAccess {
  read(): GateSettings;
  update(change: SettingChange<GateSettings>): Promise<void>;
  /** The provider the gate replays with (a separate gate model, else the review provider). */
  provider(): ProviderSettings;
}

/** Cases in the skill's evals/evals.json (as parsed by the gate), null when it has none. */
async function countCases(app: AppServices, skill: string): Promise<number | null> {
  const { engine } = await app.skills();
  const entry = engine.catalog.resolve(skill)[0];
  if (!entry) return null;
  const text = await app.storage.files.readText(`${entry.dir}/${EVALS_FILE}`);
  if (text === null) return null;
  const parsed = parseEvalsFile(text);
  return parsed.ok ? parsed.file.evals.length : null;
}

export function createTabLearningLoop(app: AppServices, options: { idle: IdleClock; onUpdate?: () => void; gate?: GateSettingsAccess }): LearningLoop {
  const gate: GateSettingsAccess = options.gate ?? {
    read: () => app.settings.get('gate'),
    update: (change) => app.settings.update('gate', change).then(() => undefined),
    provider: () => gateProvider(app.settings),
  };
  const loop = new LearningLoop({
    createBackend: async () => {
      const { ReviewWorkerClient } = await import('../review/reviewWorkerClient');
      return new ReviewWorkerClient(
        () => reviewProvider(app.settings).kind === 'webgpu' || gate.provider().kind === 'webgpu',
        // The worker's requests (reviews, gate replays) queue behind the chat's on the one engine.
        async () => {
          const { engineHost } = await import('../providers/webllm/engineHost');
          return engineHost().connectPort('background');
        },
      );
    },
    activity: app.activity,
    curatorState: app.curatorState,
    reviewProvider: () => reviewProvider(app.settings),
    intervals: () => learningIntervals(app.settings),
    notifyPendingChanged: () => app.changes.publish({ type: 'pending-changed' }),
    idle: options.idle,
    onUpdate: options.onUpdate,
    gateSettings: () => gate.read(),
    updateGateSettings: (change) => gate.update(change),
    gateProvider: () => gate.provider(),
    subscribeChanges: (listener) => app.changes.subscribe(listener),
    countCases: (skill) => countCases(app, skill),
    measuredAlready: async (skill) => hasFreshVerdict(await (await app.skills()).engine.usage.find(skill), providerModelKey(gate.provider())),
    claimAutomaticRun: (skill) => tryHoldLock(gateRunLockKey(skill)),
    online: () => (typeof navigator === 'undefined' ? true : navigator.onLine),
  });
  // session_search reaches the background model through this loop's review worker (docs/chat.md, "Session search that answers").
  void app
    .sessions()
    .then((sessions) => sessions.useSummariser((job) => loop.summariseSessions(job)))
    .catch((error: unknown) => console.warn('[knack] session summaries could not be wired', error));
  // A memory file past 80 % after a write gets the review's extra task (docs/learning-loop.md, "Memory consolidation").
  watchMemoryConsolidation(app, loop);
  return loop;
}
