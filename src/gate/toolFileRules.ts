/**
 * `skill_manage`'s checks of forged-tool files (docs/forged-tools.md, "The form"), run as the
 * engine's file rule on write_file and patch: `tools/<tool>.js` (text checks, then a compile in
 * the sandbox when one is given, for the syntax error's line), `tools/<tool>.json` (shape,
 * description, schema subset) and `evals/tool-cases.json` (shape, checks, and each case
 * against its tool's schemas when the tool's manifest is already written).
 */
import { checkToolCode, parseToolManifest, toolPathKind, type ToolManifest } from '../skills/forgedTools';
import type { SkillFileRuleContext, SkillFileRuleResult } from '../skills/skillEngine';
import { casesAgainstManifest, parseToolCasesFile } from './toolCases';

/** Compiles code without running it; the error names the line ("SyntaxError at line 3: …"), null when it compiles. */
export type ToolCompileCheck = (code: string, label: string) => Promise<string | null>;

const decoder = new TextDecoder();

async function readManifest(context: SkillFileRuleContext, tool: string): Promise<ToolManifest | null> {
  const bytes = await context.readFile(`tools/${tool}.json`);
  if (bytes === null) return null;
  const checked = parseToolManifest(decoder.decode(bytes), tool);
  return checked.ok ? checked.manifest : null;
}

async function casesRule(text: string, context: SkillFileRuleContext): Promise<SkillFileRuleResult> {
  const parsed = parseToolCasesFile(text);
  if (!parsed.ok) return { error: parsed.error, problems: parsed.problems };
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const set of parsed.sets) {
    const manifest = await readManifest(context, set.tool);
    if (manifest === null) {
      problems.push(`tool '${set.tool}' has no valid tools/${set.tool}.json yet: write the tool's files first, then its cases`);
      continue;
    }
    problems.push(...casesAgainstManifest(set, manifest));
    if (set.cases.length < 6) warnings.push(`tool '${set.tool}' has ${set.cases.length} cases; the gate needs 6 to hold 2 out and promote it.`);
  }
  if (problems.length) return { error: `evals/tool-cases.json: ${problems[0]}`, problems };
  return { warnings };
}

/** The rule for one path; null when the path is not a forged-tool file. */
export async function forgedToolFileRule(
  relativePath: string,
  text: string,
  context: SkillFileRuleContext,
  compile?: ToolCompileCheck,
): Promise<SkillFileRuleResult | null> {
  const kind = toolPathKind(relativePath);
  if (kind === null) return null;
  switch (kind.kind) {
    case 'other':
      return { error: kind.error };
    case 'code': {
      const error = checkToolCode(text, relativePath) ?? (compile ? await compile(text, relativePath) : null);
      if (error) return { error };
      const hasManifest = (await context.readFile(`tools/${kind.tool}.json`)) !== null;
      return hasManifest ? {} : { warnings: [`Write tools/${kind.tool}.json (name, description, input_schema) so the tool can be proven and offered.`] };
    }
    case 'manifest': {
      const checked = parseToolManifest(text, kind.tool);
      return checked.ok ? {} : { error: checked.error, problems: checked.problems };
    }
    case 'cases':
      return casesRule(text, context);
  }
}
