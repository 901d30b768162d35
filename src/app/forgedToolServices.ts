/**
 * Forged tools in the tab (docs/forged-tools.md): proving them on their cases in the sandbox
 * (zero model calls), keeping the proof in the skill's usage record, offering promoted tools to
 * the chat through the tab's one tool registry, and the user's switch and delete.
 *
 * Proofs run here, in the tab, whenever a skill's files change (a review forged or repaired a
 * tool, the user edited one, an import brought one): a tool is offered only once it is proven
 * on the exact bytes now stored, so an edited or imported tool is never offered on an old proof.
 */
import type { ToolOutcome } from '../tools/toolResult';
import { fail, ok } from '../tools/toolResult';
import type { ToolDefinition, ToolRegistry } from '../tools/toolRegistry';
import { createWriteContext } from '../tools/writeContext';
import type { SandboxClient } from '../tools/forgedSandboxClient';
import { offeredToolName, TOOL_CASES_FILE, type ToolManifest } from '../skills/forgedTools';
import { isOffered, sameHashes, type ForgedToolState, type ToolCodeRefusal } from '../skills/forgedToolState';
import { valueProblem } from '../skills/jsonSchemaSubset';
import type { RegexRunner } from '../gate/checks';
import { policyThresholds } from '../gate/policy';
import { parseToolCasesFile } from '../gate/toolCases';
import { loadTool, toolNamesOf, type LoadedTool } from '../gate/toolFiles';
import { proveTool, type ToolProof } from '../gate/toolProof';
import type { KnackSettingsService } from './settings';
import type { SkillServices } from './skillServices';
import type { ChangeFeed } from '../storage/changes';

export interface ForgedToolView {
  skill: string;
  tool: string;
  /** The name the chat model sees. */
  offeredName: string;
  manifest: ToolManifest | null;
  /** Why the tool cannot be proven (a missing or invalid file). */
  problem?: string;
  /** The security scan refused the code this tool lacks (docs/forged-tools.md, "Refused code"). */
  refusal?: ToolCodeRefusal;
  /** That refused write still waits for the user's confirmation in Pending. */
  refusalPending?: boolean;
  caseCount: number;
  state: ForgedToolState | null;
  /** The proof is about the bytes stored now. */
  fresh: boolean;
  offered: boolean;
}

export interface ForgedToolServices {
  list(skill: string): Promise<ForgedToolView[]>;
  /** Check again: re-runs the tool's cases in the sandbox, without a model. */
  check(skill: string, tool: string): Promise<ToolProof | { error: string }>;
  setEnabled(skill: string, tool: string, enabled: boolean): Promise<void>;
  /** Deletes the tool's files and its cases, as the user (ledgered, undoable like every write). */
  remove(skill: string, tool: string): Promise<ToolOutcome>;
  /** Registers every offered tool in the registry and takes away the rest. */
  syncOffers(): Promise<void>;
}

export interface ForgedToolDeps {
  skills: () => Promise<SkillServices>;
  registry: () => Promise<ToolRegistry>;
  settings: KnackSettingsService;
  changes: ChangeFeed;
  sandbox: () => SandboxClient;
  regexRunner: () => Promise<RegexRunner>;
}

const decoder = new TextDecoder();

/** The registry entry of an offered tool: runs the proven code in the sandbox and counts the run. */
function offeredDefinition(skill: string, loaded: Extract<LoadedTool, { ok: true }>, deps: ForgedToolDeps, recordRun: () => Promise<void>): ToolDefinition {
  const { manifest, code, tool } = loaded;
  const schema = manifest.input_schema as ToolDefinition['parameters'];
  return {
    name: offeredToolName(skill, tool),
    description: manifest.description,
    parameters: { type: 'object', properties: schema.properties ?? {}, required: schema.required ?? [] },
    async run(args) {
      const problem = valueProblem(manifest.input_schema, args, 'arguments');
      if (problem) return fail(`${problem}. Call ${tool} again with arguments that fit its schema.`);
      const result = await deps.sandbox().run(code, args);
      await recordRun().catch((error: unknown) => console.warn('[knack] counting a tool run failed', error));
      if (!result.ok) return fail(`${tool} failed: ${result.error} Work the answer out without the tool, or tell the user.`);
      return ok({ message: `Ran ${tool}.`, tool, output: JSON.parse(result.outputJson) as unknown });
    },
  };
}

/** The tab's forged tools; see createForgedToolServices. */
class ForgedTools implements ForgedToolServices {
  /** The names each skill has on offer in the registry now. */
  readonly #offeredBySkill = new Map<string, Set<string>>();
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly deps: ForgedToolDeps) {}

  async reader(skill: string): Promise<(path: string) => Promise<string | null>> {
    const skills = await this.deps.skills();
    return async (path: string) => {
      const data = await skills.readSkillFile(skill, path);
      return data === null ? null : decoder.decode(data);
    };
  }

  async toolsOf(skill: string): Promise<string[]> {
    const skills = await this.deps.skills();
    const entry = skills.engine.catalog.findByName(skill)[0];
    if (!entry) return [];
    const paths = (await skills.engine.files.walk(entry.dir)).map((path) => path.slice(entry.dir.length + 1));
    return toolNamesOf(paths);
  }

  async stateOf(skill: string, tool: string): Promise<ForgedToolState | null> {
    const record = await (await this.deps.skills()).engine.usage.find(skill);
    return record?.tools?.[tool] ?? null;
  }

  async updateState(skill: string, tool: string, change: (state: ForgedToolState | null) => ForgedToolState | null): Promise<void> {
    await (await this.deps.skills()).engine.usage.update(skill, (record) => {
      const tools = { ...(record.tools ?? {}) };
      const next = change(tools[tool] ?? null);
      if (next) tools[tool] = next;
      else delete tools[tool];
      record.tools = tools;
    });
  }

  async prove(skill: string, loaded: Extract<LoadedTool, { ok: true }>): Promise<ToolProof | { error: string }> {
    if (!loaded.cases) return { error: `'${loaded.tool}' has no cases in ${TOOL_CASES_FILE}; a tool is offered only once its cases pass here.` };
    const policy = policyThresholds(this.deps.settings.get('gate').policy);
    const sandbox = this.deps.sandbox();
    const tool = { code: loaded.code, manifest: loaded.manifest, cases: loaded.cases };
    const proof = await proveTool(tool, (code, input) => sandbox.run(code, input), await this.deps.regexRunner(), policy);
    const checkedAt = new Date().toISOString();
    await this.updateState(skill, loaded.tool, (previous) => ({
      verdict: proof.verdict.verdict,
      code: proof.verdict.code,
      reason: proof.verdict.reason,
      hashes: loaded.hashes,
      checked_at: checkedAt,
      passed: proof.passed,
      failed: proof.failed,
      cases: proof.cases.map(({ id, side, pass, input, expect, actual, error }) => ({
        id,
        side,
        pass,
        input,
        ...(expect !== undefined ? { expect } : {}),
        ...(actual !== undefined ? { actual } : {}),
        ...(error ? { error } : {}),
      })),
      enabled: previous?.enabled ?? true,
      run_count: previous?.run_count ?? 0,
      last_run_at: previous?.last_run_at ?? null,
    }));
    this.deps.changes.publish({ type: 'verdict-changed', name: skill });
    return proof;
  }

  async check(skill: string, tool: string): Promise<ToolProof | { error: string }> {
    const loaded = await loadTool(await this.reader(skill), tool);
    if (!loaded.ok) return { error: loaded.error };
    const proof = await this.prove(skill, loaded);
    await this.syncSkill(skill);
    return proof;
  }

  /**
   * Proves every tool of the skill whose bytes differ from its last proof (or that has none),
   * and forgets the scan's refusal of a tool whose code is stored now (approved or rewritten).
   */
  async refreshSkill(skill: string): Promise<void> {
    const read = await this.reader(skill);
    const refusals = (await (await this.deps.skills()).engine.usage.find(skill))?.tool_refusals ?? {};
    for (const tool of await this.toolsOf(skill)) {
      const loaded = await loadTool(read, tool);
      const state = await this.stateOf(skill, tool);
      if (refusals[tool] && !(!loaded.ok && loaded.missing === 'code')) await this.forgetRefusal(skill, tool);
      if (loaded.ok && loaded.cases && !(state && sameHashes(state.hashes, loaded.hashes))) await this.prove(skill, loaded);
    }
    await this.syncSkill(skill);
  }

  async forgetRefusal(skill: string, tool: string): Promise<void> {
    await (await this.deps.skills()).engine.usage.update(skill, (record) => {
      if (!record.tool_refusals?.[tool]) return;
      const { [tool]: _forgotten, ...rest } = record.tool_refusals;
      record.tool_refusals = rest;
    });
  }

  /** Every skill's offers, from every usage record: at start and after a rescan. */
  async syncOffers(): Promise<void> {
    const skills = await this.deps.skills();
    const names = new Set([...this.#offeredBySkill.keys()]);
    for (const record of await skills.engine.usage.all()) if (record.tools) names.add(record.name);
    for (const skill of names) await this.syncSkill(skill);
  }

  /**
   * One skill's offers: its promoted, fresh, switched-on tools registered, the rest taken away.
   * Per skill, so a storm of skill changes (an import of hundreds) costs one record each.
   */
  async syncSkill(skill: string): Promise<void> {
    const [skills, registry] = await Promise.all([this.deps.skills(), this.deps.registry()]);
    const record = skills.engine.catalog.findByName(skill)[0] ? await skills.engine.usage.find(skill) : null;
    const wanted = new Map<string, ToolDefinition>();
    const read = await this.reader(skill);
    for (const [tool, state] of Object.entries(record?.tools ?? {})) {
      if (!state.enabled || state.verdict !== 'promoted') continue;
      const loaded = await loadTool(read, tool);
      if (!loaded.ok || !isOffered(state, loaded.hashes)) continue;
      const countRun = () =>
        this.updateState(skill, tool, (s) => (s ? { ...s, run_count: s.run_count + 1, last_run_at: new Date().toISOString() } : s)).then(() => void skills.engine.usage.bumpUse(skill));
      const definition = offeredDefinition(skill, loaded, this.deps, countRun);
      wanted.set(definition.name, definition);
    }
    // A tool on offer will be called from a chat: start the sandbox now rather than on the first call.
    if (wanted.size > 0) this.deps.sandbox().warm();
    for (const name of this.#offeredBySkill.get(skill) ?? []) if (!wanted.has(name)) registry.unregister(name);
    for (const [, definition] of wanted) registry.register(definition);
    if (wanted.size > 0) this.#offeredBySkill.set(skill, new Set(wanted.keys()));
    else this.#offeredBySkill.delete(skill);
  }

  /** A changed skill is re-proven once its writes settle (a review writes a tool in several calls). */
  watch(): void {
    this.deps.changes.subscribe((change) => {
      if (change.type !== 'skill-changed' && change.type !== 'skills-rescanned') return;
      const key = change.type === 'skill-changed' ? change.name : '*';
      clearTimeout(this.#timers.get(key));
      const settle = () => {
        this.#timers.delete(key);
        const work = key === '*' ? this.syncOffers() : this.refreshSkill(key);
        work.catch((error: unknown) => console.warn('[knack] proving forged tools failed', error));
      };
      this.#timers.set(key, setTimeout(settle, 250));
    });
  }

  async list(skill: string): Promise<ForgedToolView[]> {
    const read = await this.reader(skill);
    const skills = await this.deps.skills();
    const refusals = (await skills.engine.usage.find(skill))?.tool_refusals ?? {};
    const views: ForgedToolView[] = [];
    for (const tool of await this.toolsOf(skill)) {
      const [loaded, state] = await Promise.all([loadTool(read, tool), this.stateOf(skill, tool)]);
      // A refusal explains a tool without code; once code is stored it says nothing about it.
      const refusal = !loaded.ok && loaded.missing === 'code' ? refusals[tool] : undefined;
      const refusalPending = refusal?.pending_id ? (await skills.engine.pending.get(refusal.pending_id)) !== undefined : false;
      views.push({
        skill,
        tool,
        offeredName: offeredToolName(skill, tool),
        manifest: loaded.ok ? loaded.manifest : null,
        ...(loaded.ok ? {} : { problem: loaded.error }),
        ...(refusal ? { refusal, refusalPending } : {}),
        caseCount: loaded.ok ? (loaded.cases?.cases.length ?? 0) : 0,
        state,
        fresh: loaded.ok && state !== null && sameHashes(state.hashes, loaded.hashes),
        offered: loaded.ok && isOffered(state ?? undefined, loaded.hashes),
      });
    }
    return views;
  }

  async setEnabled(skill: string, tool: string, enabled: boolean): Promise<void> {
    await this.updateState(skill, tool, (state) => (state ? { ...state, enabled } : state));
    this.deps.changes.publish({ type: 'verdict-changed', name: skill });
    await this.syncSkill(skill);
  }

  async remove(skill: string, tool: string): Promise<ToolOutcome> {
    const outcome = await removeToolFiles(skill, tool, this.deps, await this.reader(skill));
    if (outcome.success) {
      await this.updateState(skill, tool, () => null);
      await this.forgetRefusal(skill, tool);
    }
    await this.syncSkill(skill);
    return outcome;
  }
}

/** The tab's forged tools, watching skill changes to prove what changed. */
export function createForgedToolServices(deps: ForgedToolDeps): ForgedToolServices {
  const tools = new ForgedTools(deps);
  tools.watch();
  return tools;
}

/** Removes tools/<tool>.js and .json and the tool's cases through skill_manage, as the user. */
async function removeToolFiles(skill: string, tool: string, deps: ForgedToolDeps, read: (path: string) => Promise<string | null>): Promise<ToolOutcome> {
  const registry = await deps.registry();
  const context = createWriteContext('user');
  const call = async (args: Record<string, unknown>) => registry.dispatchOutcome('skill_manage', { name: skill, ...args }, context);
  for (const path of [`tools/${tool}.js`, `tools/${tool}.json`]) {
    if ((await read(path)) === null) continue;
    const removed = await call({ action: 'remove_file', file_path: path });
    if (!removed.success) return removed;
  }
  const casesText = await read(TOOL_CASES_FILE);
  const parsed = casesText === null ? null : parseToolCasesFile(casesText);
  if (parsed?.ok && parsed.sets.some((set) => set.tool === tool)) {
    const rest = parsed.sets.filter((set) => set.tool !== tool);
    const removed =
      rest.length === 0
        ? await call({ action: 'remove_file', file_path: TOOL_CASES_FILE })
        : await call({ action: 'write_file', file_path: TOOL_CASES_FILE, file_content: `${JSON.stringify(rest.length === 1 ? rest[0] : rest, null, 2)}\n` });
    if (!removed.success) return removed;
  }
  return ok({ message: `Tool '${tool}' was deleted from skill '${skill}'.` });
}
