/**
 * A skill's forged tools as stored (docs/forged-tools.md, "The form"): which tools it has, and
 * one tool's code, manifest and cases read together with the hashes a proof is about.
 */
import { parseToolManifest, TOOL_CASES_FILE, TOOLS_DIR, validateToolName, type ToolManifest } from '../skills/forgedTools';
import type { ToolHashes } from '../skills/forgedToolState';
import { sha256Hex } from '../skills/ledger';
import { canonicalJson } from './canonicalJson';
import { parseToolCasesFile, type ToolCaseSet } from './toolCases';

/** Reads a file of the skill's folder as text (relative path); null when absent. */
export type ReadSkillText = (relativePath: string) => Promise<string | null>;

/** The tool names of a skill, from the relative paths of its files: every tools/<tool>.json. */
export function toolNamesOf(relativePaths: readonly string[]): string[] {
  const names = relativePaths
    .map((path) => new RegExp(`^${TOOLS_DIR}/([^/]+)\\.json$`).exec(path)?.[1])
    .filter((name): name is string => name !== undefined && validateToolName(name) === null);
  return [...new Set(names)].sort();
}

const encoder = new TextEncoder();

/** The bytes a proof is about: the code, the manifest and the tool's own cases (canonical). */
export async function toolHashes(code: string, manifestText: string, casesCanonical: string): Promise<ToolHashes> {
  const [codeHash, manifest, cases] = await Promise.all([code, manifestText, casesCanonical].map((text) => sha256Hex(encoder.encode(text))));
  return { code: codeHash!, manifest: manifest!, cases: cases! };
}

export type LoadedTool =
  | { ok: true; tool: string; code: string; manifest: ToolManifest; cases: ToolCaseSet | null; hashes: ToolHashes }
  | { ok: false; tool: string; error: string; /** The file that is not stored, when that is the problem. */ missing?: 'code' | 'manifest' };

/** One tool's files, checked; `cases` is null when evals/tool-cases.json has none for it. */
export async function loadTool(read: ReadSkillText, tool: string): Promise<LoadedTool> {
  const [code, manifestText, casesText] = await Promise.all([read(`${TOOLS_DIR}/${tool}.js`), read(`${TOOLS_DIR}/${tool}.json`), read(TOOL_CASES_FILE)]);
  if (manifestText === null) return { ok: false, tool, error: `tools/${tool}.json is missing.`, missing: 'manifest' };
  if (code === null) return { ok: false, tool, error: `tools/${tool}.js is missing.`, missing: 'code' };
  const manifest = parseToolManifest(manifestText, tool);
  if (!manifest.ok) return { ok: false, tool, error: manifest.error };
  let cases: ToolCaseSet | null = null;
  if (casesText !== null) {
    const parsed = parseToolCasesFile(casesText);
    if (!parsed.ok) return { ok: false, tool, error: parsed.error };
    cases = parsed.sets.find((set) => set.tool === tool) ?? null;
  }
  const hashes = await toolHashes(code, manifestText, canonicalJson(cases));
  return { ok: true, tool, code, manifest: manifest.manifest, cases, hashes };
}
