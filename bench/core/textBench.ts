/**
 * Micro-benchmarks for the pure text core (SPEC §17): the fuzzy patch on a 100,000-character
 * SKILL.md (a whitespace-only difference, and a miss that falls through all nine strategies)
 * and the security scanner on the same file. Runs in the browser and in Node: no Node imports.
 * Each figure is the median of several timed runs after a warm-up, in milliseconds.
 */
import { fuzzyFindAndReplace } from '../../src/skills/fuzzyPatch';
import { scanText } from '../../src/skills/scanner';
import { locateFrontmatter, parseSkillFile, parseYamlMappingWithLibrary } from '../../src/skills/frontmatter';

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

/**
 * SKILL.md heads in the shapes public skills use (Anthropic's name/description/license, Hermes'
 * version/author/metadata.hermes.tags, quoted descriptions, allowed-tools, a block list, a
 * description that needs YAML), each with its own name: the frontmatter-per-file corpus.
 */
export function buildFrontmatterCorpus(files = 1000): string[] {
  const shapes = [
    (i: number) => `---\nname: skill-${i}\ndescription: Use when working with files of kind ${i}; covers reading, writing and checks.\nlicense: Proprietary. LICENSE.txt has complete terms\n---\n# Skill ${i}\n`,
    (i: number) =>
      `---\nname: skill-${i}\ndescription: Review pull requests for style and correctness (${i}).\nversion: 1.2.${i % 10}\nauthor: Hermes Agent\nlicense: MIT\nmetadata:\n  hermes:\n    tags: [git, review, code-review]\n    related_skills: [github-pr, changelog]\n---\n# Review ${i}\n`,
    (i: number) => `---\nname: skill-${i}\ndescription: "Use when: deploying service ${i} to staging"\n---\nbody\n`,
    (i: number) => `---\r\nname: skill-${i}\r\ndescription: Builds XLSX reports ${i}.\r\nallowed-tools: Read, Grep, Bash(python:*)\r\n---\r\nbody\r\n`,
    (i: number) => `---\nname: skill-${i}\ndescription: Format tables ${i}.\ntags:\n  - tables\n  - markdown\nplatforms: [linux, macos]\n---\nbody\n`,
    (i: number) => `---\nname: skill-${i}\ndescription: >-\n  Use when the user asks for slides ${i}\n  in the house style.\n---\nbody\n`,
  ];
  return Array.from({ length: files }, (_, i) => shapes[i % shapes.length](i));
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

  // Frontmatter per file: the parser the app uses (fast path, yaml for the rest) against the
  // yaml library alone, over the same corpus; microseconds per file.
  const corpus = buildFrontmatterCorpus();
  const yamlOnly = (content: string) => {
    const located = locateFrontmatter(content);
    if (!located.ok) throw new Error('bench corpus file without frontmatter');
    return parseYamlMappingWithLibrary(content.slice(located.layout.yamlStart, located.layout.yamlEnd), {}, 1);
  };
  for (const content of corpus) {
    const fast = parseSkillFile(content);
    const reference = yamlOnly(content);
    if (!fast.ok || !reference.ok || JSON.stringify(fast.frontmatter) !== JSON.stringify(reference.value)) {
      throw new Error('frontmatter bench: fast path and yaml disagree');
    }
  }
  const perFileUs = (parse: (content: string) => unknown) =>
    Math.round((timeMedian(() => corpus.forEach(parse)) / corpus.length) * 1000 * 100) / 100;

  const frontmatterPerFileUs = perFileUs((content) => parseSkillFile(content));
  const frontmatterYamlOnlyPerFileUs = perFileUs(yamlOnly);
  return {
    frontmatterPerFileUs,
    frontmatterYamlOnlyPerFileUs,
    // Hermes (PyYAML's C loader) took 1/1.44 = 0.69 of the yaml-only time per file (issue 21).
    frontmatterFastPathOverYamlOnly: Math.round((frontmatterPerFileUs / frontmatterYamlOnlyPerFileUs) * 100) / 100,
    fuzzyPatchWhitespaceMs: timeMedian(() => fuzzyFindAndReplace(skill, retyped, 'patched')),
    fuzzyPatchNoMatchMs: timeMedian(() => fuzzyFindAndReplace(skill, missing, 'patched')),
    scan100kMs: timeMedian(() => scanText(skill, 'SKILL.md')),
  };
}
