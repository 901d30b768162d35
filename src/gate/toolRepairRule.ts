/**
 * The repair rule at the moment of writing (docs/forged-tools.md, "Proof"): when the review
 * rewrites a tool that has been proven before, the new code runs on the tool's cases next to
 * the current code, and the write is refused unless the new code passes more of them. So a
 * repair can only move a tool forward, and a promoted tool (nothing left to pass) is never
 * rewritten by the review. The user's own edits are not held to this: they are re-proven after
 * the write like any change.
 */
import type { RegexRunner } from './checks';
import type { SkillFileRuleContext, SkillFileRuleResult } from '../skills/skillEngine';
import type { PolicyThresholds } from './types';
import { loadTool } from './toolFiles';
import { keepRepair, proveTool, type ToolCaller } from './toolProof';

export interface RepairRuleDeps {
  /** Whether the tool has a stored proof (only a proven tool's rewrite is a repair). */
  hasProof(skill: string, tool: string): Promise<boolean>;
  call: ToolCaller;
  regexRunner: () => Promise<RegexRunner>;
  policy: () => PolicyThresholds;
}

const decoder = new TextDecoder();

/** null: the write is not a repair (not the review, not a proven tool, no cases) or it is kept. */
export async function repairRule(tool: string, code: string, context: SkillFileRuleContext, deps: RepairRuleDeps): Promise<SkillFileRuleResult | null> {
  if (context.origin !== 'review' || !(await deps.hasProof(context.skill, tool))) return null;
  const read = async (path: string) => {
    const bytes = await context.readFile(path);
    return bytes === null ? null : decoder.decode(bytes);
  };
  const current = await loadTool(read, tool);
  if (!current.ok || !current.cases) return null;
  const regexRunner = await deps.regexRunner();
  const policy = deps.policy();
  const before = await proveTool({ code: current.code, manifest: current.manifest, cases: current.cases }, deps.call, regexRunner, policy);
  const after = await proveTool({ code, manifest: current.manifest, cases: current.cases }, deps.call, regexRunner, policy);
  if (keepRepair(before, after)) return null;
  const total = current.cases.cases.length;
  return {
    error:
      `Refusing the rewrite of tools/${tool}.js: it passes ${after.passed} of ${total} cases and the current version passes ${before.passed}. ` +
      'A repair is kept only if it passes more cases than the version it replaces. Look at the development failures in skill_view and fix those.',
  };
}
