/**
 * Entry of the in-page bench bundle. bench/run.mjs bundles this file (Vite, IIFE) and
 * evaluates it in the app's page, where it publishes `globalThis.knackBench`.
 *
 * Adding a benchmark: create `bench/browser/<topic>.bench.ts` exporting
 * `benches: BrowserBench[]`; it is picked up here by the glob below, nothing else to edit.
 */
import { waitForKnack, type KnackHandle } from './knack';
import type { BenchContext, BrowserBench } from './types';

const modules = import.meta.glob<{ benches: BrowserBench[] }>('./*.bench.ts', { eager: true });

// The core engineer's text benchmarks (fuzzy patch, scanner). Optional: the glob is empty
// until bench/core/textBench.ts exists, and the harness then reports it as missing.
const textModules = import.meta.glob<{ benchText: () => unknown }>('../core/textBench.ts', { eager: true });

const all: BrowserBench[] = Object.keys(modules)
  .sort()
  .flatMap((path) => modules[path].benches);

const textModule = Object.values(textModules)[0];
all.push({
  name: 'text',
  async run() {
    if (!textModule) throw new Error('bench/core/textBench.ts not present yet');
    return await textModule.benchText();
  },
});

let knackPromise: Promise<KnackHandle> | undefined;

export function names(): string[] {
  return all.map((bench) => bench.name);
}

/** Runs one bench; every bench in a page shares the one wait for the knack handle. */
export async function run(name: string, options: { knackTimeoutMs: number }): Promise<unknown> {
  const bench = all.find((candidate) => candidate.name === name);
  if (!bench) throw new Error(`no bench named ${name}`);
  const context: BenchContext = {
    knack: () => (knackPromise ??= waitForKnack(options.knackTimeoutMs)),
  };
  return bench.run(context);
}

(globalThis as { knackBench?: unknown }).knackBench = { names, run };
