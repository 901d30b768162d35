/**
 * skill_manage's rules for forged-tool files in this context (docs/forged-tools.md): the form's
 * checks with the sandbox's compile check, then, for the review's rewrite of a proven tool, the
 * repair rule (gate/toolRepairRule.ts). Wired into the skill engine by app/skillServices.ts.
 */
import type { SkillFileRules } from '../skills/skillEngine';
import type { UsageStore } from '../skills/usageStore';
import { toolPathKind } from '../skills/forgedTools';
import type { RegexRunner } from '../gate/checks';
import { policyThresholds } from '../gate/policy';
import { forgedToolFileRule } from '../gate/toolFileRules';
import { repairRule } from '../gate/toolRepairRule';
import type { KnackSettingsService } from './settings';
import { compileToolCode, forgedToolSandbox } from './forgedToolRunner';

let regexRunner: RegexRunner | null = null;
const workerRegexRunner = async (): Promise<RegexRunner> => (regexRunner ??= (await import('../gate/workerRegexRunner')).createWorkerRegexRunner());

export function forgedToolFileRules(usage: UsageStore, settings: KnackSettingsService): SkillFileRules {
  return async (relativePath, text, context) => {
    const checked = await forgedToolFileRule(relativePath, text, context, compileToolCode);
    const kind = toolPathKind(relativePath);
    if (checked?.error || kind?.kind !== 'code' || typeof Worker === 'undefined') return checked;
    const refused = await repairRule(kind.tool, text, context, {
      hasProof: async (skill, tool) => (await usage.find(skill))?.tools?.[tool] !== undefined,
      call: (code, input) => forgedToolSandbox().run(code, input),
      regexRunner: workerRegexRunner,
      policy: () => policyThresholds(settings.get('gate').policy),
    });
    return refused ?? checked;
  };
}
