/**
 * Micro-benchmarks for the pure text core (SPEC §17): the fuzzy patch on a 100,000-character
 * SKILL.md (a whitespace-only difference, and a miss that falls through all nine strategies)
 * and the security scanner on the same file. Runs in the browser and in Node: no Node imports.
 * Each figure is the median of several timed runs after a warm-up, in milliseconds.
 */
import { fuzzyFindAndReplace } from '../../src/skills/fuzzyPatch';
import { scanText } from '../../src/skills/scanner';

const TARGET_CHARS = 100_000;
const WARMUP_RUNS = 3;
const TIMED_RUNS = 15;

/** A SKILL.md that looks like real ones: prose, numbered steps, code blocks, tables, links. */
export function buildLargeSkill(chars = TARGET_CHARS): string {
  const parts: string[] = [
    '---',
    'name: release-runbook',
    'description: Use when cutting a release of the web app.',
    'metadata:',
    '  hermes:',
    '    tags: [release, ci, deploy]',
    '---',
    '# Release runbook',
    '',
  ];
  for (let section = 0; parts.join('\n').length < chars; section++) {
    parts.push(
      `## Stage ${section}: verify build ${section}`,
      '',
      `Before stage ${section}, make sure the previous stage finished and the changelog entry exists.`,
      `1. Run the test suite with \`npm test -- --shard=${section % 8}/8\` and read every failure.`,
      `2. Compare the bundle size against the budget in docs/budgets.md (stage ${section}).`,
      '3. If a check fails, stop here and tell the user which check failed and why.',
      '',
      '```js',
      `export function stage${section}(options) {`,
      `    const limit = options.limit ?? ${section * 3 + 10};`,
      '    return options.items.filter((item) => item.size <= limit);',
      '}',
      '```',
      '',
      `| step | owner | notes |`,
      `| ---- | ----- | ----- |`,
      `| ${section} | release captain | see https://docs.example/release/${section} |`,
      '',
    );
  }
  return parts.join('\n').slice(0, chars);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function timeMedian(run: () => unknown): number {
  for (let i = 0; i < WARMUP_RUNS; i++) run();
  const samples: number[] = [];
  for (let i = 0; i < TIMED_RUNS; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return Math.round(median(samples) * 1000) / 1000;
}

export async function benchText(): Promise<Record<string, number>> {
  const skill = buildLargeSkill();

  // A block from the middle of the file, retyped with different spacing inside the lines.
  const lines = skill.split('\n');
  const at = lines.findIndex((line, i) => i > lines.length / 2 && line.startsWith('1. Run the test suite'));
  const original = lines.slice(at, at + 3).join('\n');
  const retyped = original.replace(/ /g, '  ');
  const whitespaceResult = fuzzyFindAndReplace(skill, retyped, 'patched');
  if (whitespaceResult.count !== 1) throw new Error(`whitespace-only bench did not match once: ${whitespaceResult.error}`);

  const missing = 'Deploy the canary to the staging cluster\nwait for the health probe to pass\nthen promote it to production';
  const missResult = fuzzyFindAndReplace(skill, missing, 'patched');
  if (missResult.count !== 0) throw new Error('no-match bench unexpectedly matched');

  return {
    fuzzyPatchWhitespaceMs: timeMedian(() => fuzzyFindAndReplace(skill, retyped, 'patched')),
    fuzzyPatchNoMatchMs: timeMedian(() => fuzzyFindAndReplace(skill, missing, 'patched')),
    scan100kMs: timeMedian(() => scanText(skill, 'SKILL.md')),
  };
}
