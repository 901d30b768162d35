// SPEC §17 budgets, checked against the bench results. Budgets are goals, tracked: a miss
// is reported in the JSON, never a failure.
//
// `path` says where the measured figure sits in the results (dots for nesting); null means
// no bench measures it yet. When you add a bench for a figure, fill in its path.
export const budgets = [
  { key: 'initialJsGzipKB', limit: 150, unit: 'KB', path: 'initialJsGzipKB', spec: 'initial JS, gzipped, without the web-llm chunk' },
  { key: 'skillIndexSessionStart10k', limit: 50, unit: 'ms p50', path: 'skillIndex10k.sessionStart.p50', spec: 'skill index at session start (from the snapshot), 10,000 skills' },
  { key: 'skillIndexMemoryHit', limit: 1, unit: 'ms p95', path: 'skillIndex10k.memoryHit.p95', spec: 'skill index, in-memory hit' },
  // A rescan against the OPFS floor measured in the same run (list every folder, read every
  // file, 32 in flight): a ratio holds on any machine and load, milliseconds do not.
  { key: 'fullRescan1kVsFloor', limit: 1.2, unit: '× floor (p50)', path: 'skillIndex1k.rescanOverFloor', spec: 'full rescan from OPFS, 1,000 skills, against the OPFS floor' },
  { key: 'fullRescan10kVsFloor', limit: 1.2, unit: '× floor (p50)', path: 'skillIndex10k.rescanOverFloor', spec: 'full rescan from OPFS, 10,000 skills, against the OPFS floor' },
  { key: 'skillOpen1400', limit: 100, unit: 'ms p50', path: 'skillsLibrary.open.p50', spec: 'open a skill in the Skills view, library of 1,400' },
  { key: 'skillOpen1400Max', limit: 100, unit: 'ms max', path: 'skillsLibrary.open.max', spec: 'open a skill in the Skills view, library of 1,400 (slowest of 20)' },
  { key: 'skillOpenLargeUsable', limit: 200, unit: 'ms p50', path: 'skillOpen.textAndActions.p50', spec: 'opening a real-sized skill (300 files, 10 MB): text and actions usable' },
  { key: 'skillOpenLargeExportChecks', limit: 1000, unit: 'ms p50', path: 'skillOpen.exportChecks.p50', spec: 'opening a real-sized skill (300 files, 10 MB): export checks done' },
  { key: 'import80Into1300VsEmpty', limit: 1.3, unit: '× empty', path: 'skillsLibrary.importRatio', spec: 'import 80 skills into a library of 1,300 against into an empty one, view open' },
  { key: 'indexUpdateAfterWrite10k', limit: 5, unit: 'ms p50', path: 'skillIndex10k.indexUpdateAfterWrite.p50', spec: 'index update after one skill write, 10,000 skills' },
  { key: 'skillManageCreateEndToEnd', limit: 15, unit: 'ms p50', path: 'skillManageEndToEnd.create.p50', spec: 'skill_manage create end to end (write, ledger, usage, index)' },
  { key: 'skillManagePatchEndToEnd', limit: 15, unit: 'ms p50', path: 'skillManageEndToEnd.patch.p50', spec: 'skill_manage patch end to end (write, ledger, usage, index)' },
  { key: 'sessionSearch200k', limit: 20, unit: 'ms p95', path: 'sessionSearch200k.p95', spec: 'session_search over 200,000 messages' },
  { key: 'fuzzyPatchWhitespace100k', limit: 10, unit: 'ms', path: 'text.fuzzyPatchWhitespaceMs', spec: 'fuzzy patch on a 100,000-char SKILL.md, whitespace-only match' },
  { key: 'fuzzyPatchNoMatch100k', limit: 10, unit: 'ms', path: 'text.fuzzyPatchNoMatchMs', spec: 'fuzzy patch on a 100,000-char SKILL.md, no match' },
  { key: 'scanner100k', limit: 15, unit: 'ms', path: 'text.scan100kMs', spec: 'scanner on a 100,000-char SKILL.md' },
  { key: 'longTasksDuringReviewOrGate', limit: 0, unit: 'count', path: 'reviewLongTasks.longTasksOver50ms', spec: 'main-thread long tasks (> 50 ms) during a review run or gate run' },
  { key: 'longTasksDuringGate', limit: 0, unit: 'count', path: 'gate.longTasksOver50ms', spec: 'main-thread long tasks (> 50 ms) during a gate run, 24 cases, scripted model' },
  { key: 'gateRequestsPerCase', limit: 2, unit: 'requests', path: 'gate.requestsPerCase', spec: 'gate run, 24 cases, scripted model: replay requests per case (one per arm)' },
  { key: 'gateReachRequestsPerCase', limit: 1, unit: 'requests', path: 'gate.reachRequestsPerCase', spec: 'gate run, 24 cases: reach requests per case (one first chat request each, docs/gate.md "Reach")' },
  { key: 'gateReverifyRequests', limit: 0, unit: 'requests', path: 'gate.reverifyRequests', spec: 'gate run again on the unchanged skill: requests sent' },
  { key: 'offlineColdStart', limit: 1000, unit: 'ms p50', path: 'offlineColdStart.p50', spec: 'offline cold start to usable chat input' },
  { key: 'skillIndexTokens100', limit: 2500, unit: 'tokens', path: 'skillIndexTokens100.tokens', spec: 'skill index for 100 skills' },
  { key: 'skillIndexTokensAtScale100', limit: 2500, unit: 'tokens', path: 'skillIndexTokensAtScale.tokens100', spec: 'skill index for 100 skills (long names and descriptions)' },
  { key: 'skillIndexTokensAtScale1k', limit: 2500, unit: 'tokens', path: 'skillIndexTokensAtScale.tokens1000', spec: 'skill index for 1,000 skills (long names and descriptions)' },
  { key: 'skillIndexTokensAtScale10k', limit: 2500, unit: 'tokens', path: 'skillIndexTokensAtScale.tokens10000', spec: 'skill index for 10,000 skills (long names and descriptions)' },
  { key: 'skillIndexTokens1k', limit: 2500, unit: 'tokens', path: 'skillIndex1k.indexTokens', spec: 'skill index for 1,000 skills (the OPFS bench library, from the snapshot)' },
  { key: 'skillIndexTokens10k', limit: 2500, unit: 'tokens', path: 'skillIndex10k.indexTokens', spec: 'skill index for 10,000 skills (the OPFS bench library, from the snapshot)' },
  { key: 'skillImport1k', limit: 15000, unit: 'ms', path: 'skillImport1k.ms', spec: 'zip import of 1,000 skills (plan + apply, real OPFS and IndexedDB)' },
  { key: 'realSizeImport', limit: 60000, unit: 'ms', path: 'realSizeImport.totalMs', spec: 'import of a real-size library: 1,423 skills in 13 zips, review and writing (issue 21)' },
  { key: 'realSkillsOpenUsable', limit: 200, unit: 'ms max', path: 'realSkills.open.textAndActions.max', spec: 'opening a real public skill of several MB in a library of 1,423: text and actions usable (issue 21 item 8)' },
  { key: 'realSkillsOpenAllFiles', limit: 1000, unit: 'ms max', path: 'realSkills.open.filesListed.max', spec: 'opening a real public skill of several MB in a library of 1,423: every file listed (issue 21 item 8)' },
  { key: 'frontmatterVsYamlOnly', limit: 0.69, unit: '× yaml-only time per file', path: 'text.frontmatterFastPathOverYamlOnly', spec: 'frontmatter per file, fast path against the yaml library alone (Hermes, PyYAML C loader: 0.69× the yaml-only time)' },
  { key: 'skillExport1500', limit: 5000, unit: 'ms', path: 'skillExport1500.ms', spec: 'Export all of 1,500 skills, ~30 MB (collect, checks, zip)' },
  { key: 'chatToolStormLongestFrame', limit: 100, unit: 'ms', path: 'chatToolStorm.full.longestFrameMs', spec: 'chat, a model asking for 200 tool calls in every reply: longest frame over the turn' },
  { key: 'chatToolStormStop', limit: 500, unit: 'ms max', path: 'chatToolStorm.stop.latency.max', spec: 'chat, 200 tool calls a reply: Stop clicked → chat idle (next frame)' },
  { key: 'chatToolStormAfterStop', limit: 0, unit: 'requests + results', path: 'chatToolStorm.stop.afterStop', spec: 'chat, 200 tool calls a reply: requests and tool results after Stop took effect' },
  { key: 'firstRequestAt4096Skills0', limit: 35, unit: '% of the window', path: 'contextBudget.firstRequestAt4096.0.percentOfWindow', spec: 'first chat request at a 4,096 window, no skills' },
  { key: 'firstRequestAt4096Skills40', limit: 35, unit: '% of the window', path: 'contextBudget.firstRequestAt4096.1.percentOfWindow', spec: 'first chat request at a 4,096 window, 40 skills' },
  { key: 'firstRequestAt4096Skills1000', limit: 35, unit: '% of the window', path: 'contextBudget.firstRequestAt4096.2.percentOfWindow', spec: 'first chat request at a 4,096 window, 1,000 skills' },
  { key: 'chat30TurnsOverWindow', limit: 0, unit: 'requests', path: 'contextBudget.chat30TurnsAt4096.requestsWithReplyOverWindow', spec: 'a 30-turn chat at 4,096 with 40 skills: requests whose prompt + max_tokens pass the window' },
  // SPEC §7.1 "Cost": at most one summary request per 5 user turns at 4,096, per 3 at 2,048.
  { key: 'summaryRequests30TurnsAt4096', limit: 6, unit: 'requests', path: 'contextBudget.chat30TurnsAt4096.summaryRequests', spec: 'summary requests in a 30-turn chat at 4,096 (honest summariser)' },
  { key: 'summaryRequests15TurnsAt2048', limit: 5, unit: 'requests', path: 'contextBudget.chat15TurnsAt2048.summaryRequests', spec: 'summary requests in a 15-turn chat at 2,048 (honest summariser)' },
  { key: 'githubSyncNothingChanged', limit: 1, unit: 'requests', path: 'githubSync.nothingChanged.requests', spec: 'GitHub sync with nothing changed, 1,423 skills (docs/sync.md)' },
  { key: 'githubSyncOneSkillThere', limit: 3, unit: 'requests', path: 'githubSync.oneSkillChangedThere.requests', spec: 'GitHub sync with one skill changed on another device, 1,423 skills' },
  { key: 'githubSyncOneSkillHere', limit: 3, unit: 'requests', path: 'githubSync.oneSkillChangedHere.requests', spec: 'GitHub sync with one skill changed here, 1,423 skills' },
  { key: 'syncFolderReread1423', limit: 2000, unit: 'ms p50', path: 'syncFolderReread1423.warm.p50', spec: 'folder re-read (on focus) of 1,423 skills, nothing changed' },
  { key: 'threeWayMerge100KB', limit: 50, unit: 'ms p50', path: 'threeWayMerge100KB.merge.p50', spec: 'three-way merge of a 100 KB SKILL.md edited on both sides (docs/install.md)' },
  { key: 'checkForUpdates1000Requests', limit: 20, unit: 'requests', path: 'checkForUpdates1000.requests', spec: 'Check for updates over 1,000 installed skills from 20 sources: source reads' },
  { key: 'forgedToolCold', limit: 100, unit: 'ms', path: 'forgedTools.sandbox.coldFirstInPageMs', spec: 'forged tool call in the sandbox, cold (first call in the page: engine, worker, call)' },
  { key: 'forgedToolWarm', limit: 5, unit: 'ms p50', path: 'forgedTools.sandbox.warm.p50', spec: 'forged tool call in the sandbox, warm (round trip from the page)' },
  { key: 'forgedToolCorrect', limit: 0, unit: 'wrong answers of 20', path: 'forgedTools.withToolWrong', spec: 'discount + VAT + rounding questions answered through the forged tool: wrong answers' },
];

function lookup(results, path) {
  let value = results;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = value[part];
  }
  return value;
}

/** `{ key: { limit, unit, actual, met } }`; `met` is null when the figure is not measured. */
export function checkBudgets(results) {
  const out = {};
  for (const budget of budgets) {
    const actual = budget.path ? lookup(results, budget.path) : undefined;
    const measured = typeof actual === 'number' && Number.isFinite(actual);
    out[budget.key] = {
      limit: budget.limit,
      unit: budget.unit,
      actual: measured ? actual : null,
      met: measured ? actual <= budget.limit : null,
    };
  }
  return out;
}
