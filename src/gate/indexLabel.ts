import type { SkillLabelFunction } from '../skills/skillIndex';
import type { UsageLabel, Verification } from '../skills/usageStore';
import type { IndexLabel } from './types';
import { verdictLabel, type LabelInput } from './verdictLabel';

/**
 * The adapter between the usage record's label (what the skill index reads at every session
 * start, from one record) and `verdictLabel`, the one function that chooses the words
 * (docs/gate.md, "Effects"). The skill index sits below the gate, so it receives `indexLabel`
 * by injection (SkillIndex's third constructor argument) instead of importing it.
 */

/** The stored word as a verdict: `unmeasured` is "the gate never ran". */
function verdictOf(verification: Verification): LabelInput['verdict'] {
  return verification === 'unmeasured' ? null : verification;
}

/** What `verdictLabel` reads, from a usage label (undefined = the default: unverified, active). */
export function labelInputOf(label: UsageLabel | undefined): LabelInput {
  if (!label) return { verdict: null, fresh: true, approvedBy: null };
  return { verdict: verdictOf(label.verification), fresh: label.stale !== true, approvedBy: label.approvedBy ?? null };
}

/**
 * What `verdictLabel` reads for a chat on `model` (a model key, gate/modelKey.ts): that model's
 * own verdict, and "never run" when it has none — a verdict measured on another model says
 * nothing about this one (docs/gate.md, "Per-model verdicts"). Without a model, or for a
 * record that kept no per-model verdicts, the newest verdict of any model.
 */
export function labelInputFor(label: UsageLabel | undefined, model?: string): LabelInput {
  if (model === undefined || !label?.models) return labelInputOf(label);
  const entry = label.models[model];
  if (!entry) return { verdict: null, fresh: true, approvedBy: null };
  return { verdict: verdictOf(entry.verification), fresh: entry.stale !== true, approvedBy: entry.approvedBy ?? null };
}

/** The label of a skill with this usage label (for a chat on `model`); null = withheld from the index. */
export function usageIndexLabel(label: UsageLabel | undefined, model?: string): IndexLabel {
  return verdictLabel(labelInputFor(label, model));
}

/** The label function the skill index takes (`new SkillIndex(catalog, loadLabels, indexLabel)`). */
export const indexLabel: SkillLabelFunction = usageIndexLabel;
