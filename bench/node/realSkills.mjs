// Real public skills for the `realSkills` bench (issue 21 item 8; bench/README.md "Real public
// skills"). The generated library (tests/fixtures/realSizeLibrary.ts) has the right shape, but
// its text is not a real skill's: these are npm packages that ship SKILL.md folders as their
// authors wrote them (Anthropic's docx, pptx and canvas-design skills among them, with their
// XSD schemas and fonts). They are fetched at bench time with `npm pack` (pinned versions, the
// registry's integrity check) into node_modules/.cache, never committed: their licences are
// their own. The in-page bench installs each tarball through the app's own archive reader.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Pinned: a new version could move the figures. About 1,050 SKILL.md folders in all. */
export const REAL_SKILL_PACKAGES = [
  'ecc-universal@2.0.0', // 719 skills: one collection, as the 864-skill zip of issue 21
  'cc-sdd@3.0.2', // 136: the same skills laid out for three agents
  'shopify-cc-kit@2.0.3', // 57, with Anthropic's canvas-design (83 files, 5.5 MB of fonts and text)
  'specweave@1.0.593', // 51
  'ai-labs-claude-skills@2.0.1', // 27, with Anthropic's docx and pptx (56–59 files, XSD schemas)
  '@salesforce/webapp-template-feature-react-chart-experimental@1.109.0', // 21
  '00bx-photoshop-mcp@1.1.2', // 7
  '@plaited/development-skills@0.8.1', // 5
  'faf-cli@6.2.0', // 4
  '@wednesday-solutions-eng/ai-agent-skills@1.1.0', // 2
  '@ckelsoe/claude-skill-prompt-architect@2.1.4', // 1 skill of 59 files
];

/** npm pack's file name for a spec: `@scope/name@1.0.0` → `scope-name-1.0.0.tgz`. */
function tarballName(spec) {
  const at = spec.lastIndexOf('@');
  return `${spec.slice(0, at).replace(/^@/, '').replace('/', '-')}-${spec.slice(at + 1)}.tgz`;
}

/**
 * The tarballs, fetched once into `cacheDir`: `[{ spec, file, bytes }]`. Throws with the
 * package's name when the registry cannot be reached, so the bench reports why it did not run.
 */
export async function prepareRealSkills(cacheDir) {
  mkdirSync(cacheDir, { recursive: true });
  const out = [];
  for (const spec of REAL_SKILL_PACKAGES) {
    const file = path.join(cacheDir, tarballName(spec));
    if (!existsSync(file)) {
      try {
        await run('npm', ['pack', spec, '--pack-destination', cacheDir, '--silent'], { timeout: 120_000 });
      } catch (error) {
        throw new Error(`npm pack ${spec} failed: ${String(error?.stderr || error?.message || error).split('\n')[0]}`, { cause: error });
      }
      if (!existsSync(file)) throw new Error(`npm pack ${spec} wrote none of ${readdirSync(cacheDir).join(', ')}`);
    }
    out.push({ spec, file: path.basename(file), bytes: readFileSync(file).length });
  }
  return out;
}
