import { formatScanReport, scanSkill, shouldAllowInstall, type Finding, type InstallDecision, type Verdict } from './scanner';
import type { SkillFiles } from './ledger';

/**
 * The scan of a model write (docs/skill-tools.md): the skill as it would be after the write, scanned as
 * `agent-created`. Knack scans before publishing, so a blocked write never reaches the store.
 */
export interface WriteScan {
  decision: InstallDecision;
  verdict: Verdict;
  reason: string;
  report: string;
  /** Paths inside the skill (`tools/price.js`), as scanned. */
  findings: Finding[];
}

export function scanSkillWrite(name: string, dir: string, files: SkillFiles): WriteScan {
  const result = scanSkill({
    name,
    source: 'agent-created',
    files: [...files].map(([path, content]) => ({ path: path.slice(dir.length + 1), content })),
  });
  const install = shouldAllowInstall(result);
  return { decision: install.decision, verdict: result.verdict, reason: install.reason, report: formatScanReport(result, install), findings: result.findings };
}
