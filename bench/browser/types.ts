import type { KnackHandle } from './knack';

export interface BenchContext {
  /** The app's handle; throws "knack handle missing" if boot never published it. */
  knack(): Promise<KnackHandle>;
}

/**
 * One in-page benchmark. Its result (any JSON value, usually a Summary from stats.ts) lands
 * in the harness's JSON under `name`. A bench that throws is reported as `{ "error": … }`.
 */
export interface BrowserBench {
  name: string;
  run(context: BenchContext): Promise<unknown>;
}
