/**
 * The tab's learning loop (src/review/learningLoop.ts) wired to the tab's services: the review
 * worker as its backend (comlink and the worker chunk load on the first run), the settings
 * service for the review provider and the intervals, the activity log, the curator record.
 * The idle clock comes from the UI, which feeds it with input events.
 */
import { LearningLoop, type IdleClock } from '../review/learningLoop';
import type { AppServices } from './appServices';
import { learningIntervals, reviewProvider } from './settings';

export function createTabLearningLoop(app: AppServices, options: { idle: IdleClock; onUpdate?: () => void }): LearningLoop {
  return new LearningLoop({
    createBackend: async () => {
      const { ReviewWorkerClient } = await import('../review/reviewWorkerClient');
      return new ReviewWorkerClient(
        () => reviewProvider(app.settings).kind === 'webgpu',
        async () => {
          const { engineHost } = await import('../providers/webllm/engineHost');
          return engineHost().connectPort();
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
  });
}
