/**
 * What the tab's UI asks of the verification gate (docs/gate.md), apart from starting and
 * stopping runs, which go through the learning loop (review/learningLoop.ts: `verify`,
 * `cancelVerify`, progress listeners) because runs happen in the review worker.
 *
 * `createGateServices` (this file's implementation, built by the composition
 * root, `AppServices.gate()`) reads the verdict store, the skill's evals/evals.json and the
 * gate settings. The Skills view's state calls these methods and nothing else of the gate.
 */
import type { ToolOutcome } from '../tools/toolResult';
import type { Check, EvalCase, EvalsFile, VerdictRecord } from '../gate/types';
import type { ParsedDraft } from '../gate/checkDraft';
import type { RecordStore } from '../storage/recordStore';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { RegexRunner } from '../gate/checks';
import type { ReplayCacheEntry } from '../gate/replayCache';
import type { KnackSettingsService } from './settings';
import type { CandidateCase } from '../skills/candidateCases';
import type { SkillServices } from './skillServices';

export interface GateEvidence {
  /** Newest applied run, or null when the skill was never verified. */
  latest: VerdictRecord | null;
  /** Every run of the skill, newest first (superseded ones included). */
  history: VerdictRecord[];
  /** The latest run is about other bytes than the skill's files now. */
  stale: boolean;
  /** The gate's model now, when it differs from the latest run's model ("verified with X; the gate now uses Y"). */
  gateModelNow: string | null;
  /** Replay noise seen for the gate's model: flips in probes. */
  noise: { probes: number; flips: number } | null;
  /** The verdict of each model the skill was measured on (newest applied run per model), newest first. */
  byModel: { key: string; record: VerdictRecord; stale: boolean }[];
  /** The model a new chat uses now, which "Verify on …" measures; null when none is set up. */
  chatModel: { key: string; label: string; choice: { providerId: string; model: string } } | null;
}

export interface GateCasesFile {
  /** evals/evals.json as stored, or null when the skill has none. */
  text: string | null;
  /** Parsed, or null when absent or unparsable (then `error` says why). */
  file: EvalsFile | null;
  error?: string;
}

export interface GateEstimate {
  /** Requests the run would send (cache hits excluded). */
  requests: number;
  /** Requests answered from the cache. */
  cached: number;
  /** The gate provider's host, for the confirmation text; 'this browser' for web-llm. */
  host: string;
  /** Whether the provider is on this machine (web-llm or loopback). */
  local: boolean;
}

export interface GateServices {
  evidence(skill: string): Promise<GateEvidence>;
  /** The user's Approve on a staged verdict: label [approved], never [verified]. */
  approve(skill: string, recordId: string): Promise<ToolOutcome>;
  readCases(skill: string): Promise<GateCasesFile>;
  /** Writes evals/evals.json as the user (skill_manage write_file: validated, ledgered, scanned). */
  saveCases(skill: string, file: EvalsFile): Promise<ToolOutcome>;
  /** Per-field problems of one case while it is being edited (evalCases validateCaseDraft). */
  validateCase(draft: EvalCase, others: EvalCase[]): Record<string, string>;
  /** "Try these checks" against a pasted answer, with the gate's own scoring and regex watchdog. */
  tryChecks(answer: string, checks: Check[]): Promise<{ pass: boolean; reason?: string }[]>;
  /** What a run would cost now (reads the cache; sends nothing). */
  estimate(skill: string): Promise<GateEstimate>;
  /** Requests from later chats that loaded the skill (region **Cases from your chats**). */
  candidates(skill: string): Promise<CandidateCase[]>;
  /** **Add as case**: the case the request becomes, with its provenance and drafted checks, for the editor (nothing saved). */
  candidateAsCase(skill: string, key: string, draft: ParsedDraft | null): Promise<{ success: true; case: EvalCase } | { success: false; error: string }>;
  /** After the editor saved: the candidate leaves the list when its case is in evals/evals.json. */
  settleCandidate(skill: string, key: string): Promise<boolean>;
  /** **Dismiss**: the request is dropped and does not come back. */
  dismissCandidate(skill: string, key: string): Promise<void>;
  /** **Use the new description** of a kept description trial: SKILL.md's description line, patched as the user. */
  useDescription(skill: string, description: string): Promise<ToolOutcome>;
}

// -------------------------------------------------------------------------------------------
// The implementation, built once per context by the composition root (AppServices.gate()).


export interface GateServicesDeps {
  settings: KnackSettingsService;
  skills: () => Promise<SkillServices>;
  /** The context's one tool registry: the user's case edits go through skill_manage. */
  tools: () => Promise<ToolRegistry>;
  replays: RecordStore<ReplayCacheEntry>;
  /** The regex runner of "Try these checks"; the default is the watchdog worker, created on first use. */
  regexRunner?: RegexRunner;
}

const textDecoder = new TextDecoder();

/** The gate's modules, loaded together on the first use of the gate services (a chunk of their own). */
async function gateModules() {
  const [evalCases, checks, effects, verdictStore, estimate, replayCache, cacheKey, gateJob, settings, toolResult, writeContext, modelKey, chatModels] = await Promise.all([
    import('../gate/evalCases'),
    import('../gate/checks'),
    import('../gate/gateEffects'),
    import('../gate/verdictStore'),
    import('../gate/gateEstimate'),
    import('../gate/replayCache'),
    import('../gate/cacheKey'),
    import('../gate/gateJob'),
    import('./settings'),
    import('../tools/toolResult'),
    import('../tools/writeContext'),
    import('../gate/modelKey'),
    import('./chatModels'),
  ]);
  return { evalCases, checks, effects, verdictStore, estimate, replayCache, cacheKey, gateJob, settings, toolResult, writeContext, modelKey, chatModels };
}

type GateModules = Awaited<ReturnType<typeof gateModules>>;

/** The model a new chat uses now, as "Verify on …" names it; null when none is set up. */
function chatModelNow(deps: GateServicesDeps, modules: GateModules): GateEvidence['chatModel'] {
  const app = deps.settings.get('app');
  const resolved = modules.chatModels.resolveChatModel(app, modules.chatModels.newChatModel(app));
  return resolved.ok ? { key: modules.modelKey.providerModelKey(resolved.provider), label: resolved.label, choice: resolved.choice } : null;
}

/** GateServices.evidence: the stored runs of a skill, what is stale, and the verdict of each model. */
async function evidenceOf(deps: GateServicesDeps, modules: GateModules, skill: string): Promise<GateEvidence> {
  const { freshness } = modules.verdictStore;
  const { modelKey, settings: settingsModule } = modules;
  const skills = await deps.skills();
  const [latest, history, current] = await Promise.all([skills.verdicts.latest(skill), skills.verdicts.history(skill), skills.gate.currentHashes(skill)]);
  const provider = settingsModule.gateProvider(deps.settings);
  const providerId = modules.cacheKey.replayProviderId(provider);
  const noise = deps.settings.get('gate').noise[settingsModule.gateNoiseKey(provider, providerId)] ?? null;
  const staleFor = (record: VerdictRecord) => current === null || freshness(record, current) === 'stale';
  return {
    latest,
    history,
    byModel: modelKey.latestPerModel(history).map((record) => ({ key: modelKey.verdictModelKey(record), record, stale: staleFor(record) })),
    chatModel: chatModelNow(deps, modules),
    stale: latest !== null && staleFor(latest),
    gateModelNow: latest !== null && latest.model.id !== provider.model ? provider.model : null,
    noise,
  };
}

export async function createGateServices(deps: GateServicesDeps): Promise<GateServices> {
  const modules = await gateModules();
  const { evalCases, checks, settings: settingsModule } = modules;
  const { approveSkill } = modules.effects;
  const { estimateGateRun } = modules.estimate;
  const { RecordStoreReplayCache } = modules.replayCache;
  const { replayProviderId } = modules.cacheKey;
  const { EVALS_FILE, SKILL_FILE } = modules.gateJob;
  const { ok, fail } = modules.toolResult;
  const { createWriteContext } = modules.writeContext;
  let regexRunner = deps.regexRunner ?? null;
  const runner = async (): Promise<RegexRunner> => (regexRunner ??= (await import('../gate/workerRegexRunner')).createWorkerRegexRunner());
  const readText = async (skill: string, path: string): Promise<string | null> => {
    const data = await (await deps.skills()).readSkillFile(skill, path);
    return data === null ? null : textDecoder.decode(data);
  };
  const gateNow = () => {
    const provider = settingsModule.gateProvider(deps.settings);
    return { provider, providerId: replayProviderId(provider) };
  };

  const candidateDeps = () => ({ skills: deps.skills, readCases: services.readCases, saveCases: services.saveCases });
  const services: GateServices = {
    evidence: (skill) => evidenceOf(deps, modules, skill),
    candidates: async (skill) => (await import('./candidateServices')).listCandidates(candidateDeps(), skill),
    candidateAsCase: async (skill, key, draft) => (await import('./candidateServices')).candidateAsCase(candidateDeps(), skill, key, draft),
    settleCandidate: async (skill, key) => (await import('./candidateServices')).settleCandidate(candidateDeps(), skill, key),
    dismissCandidate: async (skill, key) => (await import('./candidateServices')).dismissCandidate(candidateDeps(), skill, key),
    async useDescription(skill, description) {
      const line = /^description:.*$/m.exec((await readText(skill, SKILL_FILE)) ?? '')?.[0];
      if (!line) return fail(`'${skill}' has no description line in SKILL.md to replace.`);
      const args = { action: 'patch', name: skill, old_string: line, new_string: `description: ${JSON.stringify(description)}` };
      return (await deps.tools()).dispatchOutcome('skill_manage', args, createWriteContext('user'));
    },

    async approve(skill, recordId) {
      const approved = await approveSkill(skill, recordId, await deps.skills());
      return approved.success ? ok({ message: `'${skill}' is approved: its label is [approved].`, record_id: approved.record.id }) : fail(approved.error);
    },

    async readCases(skill) {
      const text = await readText(skill, EVALS_FILE);
      if (text === null) return { text: null, file: null };
      const parsed = evalCases.parseEvalsFile(text);
      return parsed.ok ? { text, file: parsed.file } : { text, file: null, error: parsed.error };
    },

    async saveCases(skill, file) {
      const registry = await deps.tools();
      const args = { action: 'write_file', name: skill, file_path: EVALS_FILE, file_content: evalCases.serializeEvalsFile(file) };
      return registry.dispatchOutcome('skill_manage', args, createWriteContext('user'));
    },

    validateCase(draft, others) {
      return evalCases.validateCaseDraft(draft, { others }).errors;
    },

    async tryChecks(answer, list) {
      const text = checks.answerText(answer);
      const regex = await runner();
      return Promise.all(
        list.map(async (check) => {
          const scored = await checks.scoreOutput(text, [check], regex);
          return scored.unscorable ? { pass: false, reason: scored.unscorable } : { pass: scored.passed === 1 };
        }),
      );
    },

    async estimate(skill) {
      const { provider, providerId } = gateNow();
      const gate = deps.settings.get('gate');
      const [markdown, evalsText, skills] = await Promise.all([readText(skill, SKILL_FILE), readText(skill, EVALS_FILE), deps.skills()]);
      return estimateGateRun({
        skill: { name: skill, markdown: markdown ?? '', readFile: (path) => skills.readSkillFile(skill, path) },
        evalsText: markdown === null ? null : evalsText,
        policy: gate.policy,
        providerId,
        model: provider.model,
        maxTokens: gate.maxTokens,
        cache: new RecordStoreReplayCache(deps.replays),
      });
    },
  };
  return services;
}
