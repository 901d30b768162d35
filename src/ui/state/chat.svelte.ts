/**
 * The chat's UI state: the open conversation as the list shows it, the text streaming in,
 * and what the last turn's problem was. The work is done by the session controller
 * (src/agent/chatSession.ts); this module picks the provider from the settings, handles the
 * slash commands that open views, and announces replies (start and end only).
 */
import { announcer } from './announcer.svelte';
import { learning } from './learning.svelte';
import { navigation } from './navigation.svelte';
import { networkRequests } from './network.svelte';
import { sessions } from './sessions.svelte';
import { settings } from './settings.svelte';
import { chatModel } from './chatModel.svelte';
import { VIEW_IDS, type ViewId } from './routes';
import { ChatController, type ChatLine, type ChatSessionDeps, type TurnProblem } from '../../agent/chatSession';
import type { ContextUsage } from '../../agent/contextBudget';
import type { ChatContext } from '../../agent/chatContext';
import type { SessionSummary } from '../../sessions/sessionStore';
import { parseSlashCommand } from '../../agent/slashCommands';
import { appServices } from '../../app/services';
import { createProvider } from '../../providers/createProvider';
import type { ChatProvider } from '../../providers/provider';
import { engineHost } from '../../providers/webllm/engineHost';
import { providerModelKey } from '../../gate/modelKey';
import { outcomeOfNextMessage, type UseOutcome } from '../../skills/candidateCases';
import { UseOutcomeTracker } from '../../skills/useOutcomeTracker';
import { skillAtSend, type DraftRouting } from '../../skills/draftRouting';

/**
 * A stand-in model for tests and DevTools (`knackUi.chat.connect(...)`): given the
 * conversation so far, stream the reply's text. Abort `signal` ends it (Stop, Esc).
 * While one is connected it replaces the provider from the settings.
 */
export type Responder = (history: readonly ChatLine[], signal: AbortSignal) => AsyncIterable<string>;

function responderProvider(responder: Responder, history: () => readonly ChatLine[]): ChatProvider {
  return {
    id: 'console-responder',
    model: 'console-responder',
    nativeTools: true,
    async *stream(request) {
      const signal = request.signal ?? new AbortController().signal;
      try {
        for await (const text of responder(history(), signal)) {
          if (signal.aborted) break;
          yield { type: 'text-delta', text };
        }
      } catch (error) {
        if (!signal.aborted) throw error;
      }
      yield { type: 'finish', reason: signal.aborted ? 'abort' : 'stop' };
    },
  };
}

/** A reply flagged on its line: said instead of the end's usual words. */
const ANNOUNCE_NOTICE: Record<string, string> = {
  'cut-off': 'Reply cut off.',
  empty: 'The model returned an empty reply.',
};

const ANNOUNCE_END: Record<string, string> = {
  final: 'Reply finished.',
  stopped: 'Reply stopped.',
  'iteration-limit': 'Reply finished.',
  error: 'Reply failed.',
};

/** How many recent `lines` changes are remembered for `changedSince`. */
const LINE_CHANGES_KEPT = 32;

class ChatState {
  /**
   * Where the conversation's lines are: the attached controller's own list, which it changes in
   * place (its line objects never change once sent, see ChatController). Each change bumps
   * `#linesVersion`; `lines` copies the list once per version, when someone reads it, so a burst
   * of tool results between two frames makes one copy, not one per result.
   */
  #linesSource: () => readonly ChatLine[] = () => [];
  #linesVersion = $state(0);
  #linesCopy: { version: number; lines: ChatLine[] } | null = null;
  /** The recent changes, each with its version and the first line it changed. */
  #lineChanges: { version: number; from: number }[] = [];
  /** Text of the model call in progress. */
  draft = $state('');
  /** Why the last turn ended without a reply, with what to do about it; cleared by the next. */
  problem = $state<TurnProblem | null>(null);
  sessionId = $state<string | null>(null);
  /** Active skills, for slash completion. */
  skills = $state.raw<{ name: string; description: string }[]>([]);
  /** What the latest request took of the model's window, by part (the context meter); null: unknown. */
  context = $state.raw<ContextUsage | null>(null);
  /** Quiet notes of what the window budget did in this chat (docs/context-window.md). */
  contextNotes = $state.raw<string[]>([]);
  /** The open chat's summary of its earlier messages, once it was compacted. */
  summary = $state.raw<SessionSummary | null>(null);
  /** A compaction asked for with Compact now is running. */
  compacting = $state(false);
  /** A summary is being written after a reply, ahead of the next turn (docs/context-window.md, "Summaries ahead"). */
  summarisingAhead = $state(false);
  #generating = $state(false);
  /**
   * Stop was pressed and the turn is winding down: no model call or tool runs any more, only the
   * writes of what it already said are landing. The chat is idle to the user meanwhile (Stop
   * takes effect at once, docs/chat.md "Stop"); a send waits for the turn's end.
   */
  #stopping = $state(false);
  #ended: Promise<void> = Promise.resolve();
  #endTurn: () => void = () => undefined;
  #waitingToRun = false;
  #controller: ChatController | null = null;
  #unsubscribe: (() => void) | null = null;
  #responder: Responder | null = null;

  get isGenerating(): boolean {
    return this.#generating && !this.#stopping;
  }

  /** The user stopped the reply; its last writes are still landing. */
  get isStopping(): boolean {
    return this.#generating && this.#stopping;
  }

  get isEmpty(): boolean {
    return this.lineCount === 0 && !this.#generating;
  }

  /** The conversation (a copy, made once per change; its line objects are shared). */
  get lines(): ChatLine[] {
    const version = this.#linesVersion;
    if (this.#linesCopy?.version !== version) this.#linesCopy = { version, lines: this.#linesSource().slice() };
    return this.#linesCopy.lines;
  }

  /** Shows these lines (tests and DevTools); the next change of an attached chat replaces them. */
  set lines(lines: ChatLine[]) {
    const shown = lines.slice();
    this.#setLines(() => shown, 0);
  }

  /** Bumped on every change of `lines`: reading it is cheap, unlike `lines`. */
  get linesVersion(): number {
    return this.#linesVersion;
  }

  get lineCount(): number {
    void this.#linesVersion;
    return this.#linesSource().length;
  }

  /**
   * The first line that may differ between the lines at `version` and at `until` (earlier and
   * later values of `linesVersion`): the list rebuilds from there (docs/chat.md, "Rendering").
   * Infinity when nothing changed; 0 when `version` is too old to know. Not reactive.
   */
  changedSince(version: number, until: number): number {
    if (version === until) return Infinity;
    const oldest = this.#lineChanges[0];
    if (!oldest || oldest.version > version + 1 || version > until) return 0;
    let from = Infinity;
    for (const change of this.#lineChanges) if (change.version > version && change.version <= until) from = Math.min(from, change.from);
    return from;
  }

  #setLines(source: () => readonly ChatLine[], from: number): void {
    const version = this.#linesVersion + 1;
    this.#lineChanges.push({ version, from });
    if (this.#lineChanges.length > LINE_CHANGES_KEPT) this.#lineChanges.shift();
    this.#linesSource = source;
    this.#linesVersion = version;
  }

  /** The test and DevTools seam; pass null to go back to the configured provider. */
  connect(responder: Responder | null): void {
    this.#responder = responder;
  }

  /**
   * The chat model's context window in tokens, for the router's default (docs/gate.md, "Router"),
   * from the window book (docs/context-window.md); null = no model chosen.
   */
  contextWindow = async (): Promise<number | null> => (await this.#context())?.window.tokens ?? null;

  /**
   * The skill the router would load for `text` on this chat's model, or null (the decision is
   * app/routerServices.ts `routeMessage`); never for a console responder.
   */
  routeFor = async (text: string): Promise<string | null> => {
    if (this.#responder) return null;
    return (await (await appServices()).chat()).routeFor(text, async () => {
      try {
        const textProtocol = (await chatModel.providerSettings()).toolProtocol === 'text';
        return { window: await this.contextWindow(), textProtocol };
      } catch {
        return null; // no usable model: nothing to route for
      }
    });
  };

  /**
   * Returns false (and does nothing) for blank text or while a reply is running. `routing`: the
   * composer's router pick and the chips the user removed; a message that is not a slash command
   * is loaded with the router's pick for exactly this text, as `/<skill>` loads it
   * (skills/draftRouting.ts `skillAtSend`, docs/gate.md "Router").
   */
  send = async (text: string, routing: DraftRouting = { held: null, removed: [] }): Promise<boolean> => {
    if (text.trim() === '' || this.isGenerating) return false;
    const command = parseSlashCommand(text, new Set(this.skills.map((skill) => skill.name)));
    if (command?.kind === 'open') {
      navigation.go(command.view === 'pending' ? pendingView() : command.view);
      return true;
    }
    if (command?.kind === 'new-chat') {
      this.newChat();
      return true;
    }
    if (command?.kind === 'search') {
      sessions.openSearch(command.query);
      return true;
    }
    if (!command) this.#noteOutcome(outcomeOfNextMessage(text));
    if (command?.kind === 'skill') return this.#run((controller) => controller.invokeSkill(command.name, command.request));
    return this.#run(async (controller) => {
      const skill = await this.#skillAtSend(text, routing);
      return skill ? controller.invokeSkill(skill, text) : controller.send(text);
    });
  };

  /** The router's pick for a message being sent; a router that fails sends the message as typed. */
  async #skillAtSend(text: string, routing: DraftRouting): Promise<string | null> {
    try {
      return await skillAtSend(text, routing, this.routeFor);
    } catch (error) {
      console.warn('[knack] the skill router failed; sending without a skill', error);
      return null;
    }
  }

  stop = (): void => {
    this.#controller?.stop();
    if (this.#generating && this.#controller) this.#stopping = true;
  };

  regenerate = (): Promise<boolean> => {
    this.#noteOutcome('regenerated');
    return this.#run((controller) => controller.regenerate());
  };

  editAndResend = (lineId: string, text: string): Promise<boolean> => {
    this.#noteOutcome('edited');
    return this.#run((controller) => controller.editAndResend(lineId, text));
  };

  /** What the user does after a turn that loaded skills (docs/gate.md, "Use outcomes"). */
  #outcomes = new UseOutcomeTracker(async (names, outcome) => (await (await appServices()).chat()).recordOutcome(names, outcome));

  #noteOutcome(outcome: UseOutcome): void {
    void this.#outcomes.next(outcome, this.isGenerating).catch((error: unknown) => console.warn('[knack] recording a use outcome failed', error));
  }

  /** Summarises the middle of the open chat now (the header's Compact now). */
  compactNow = async (): Promise<void> => {
    const controller = this.#controller;
    if (!controller || this.#generating || this.compacting) return;
    this.compacting = true;
    try {
      const outcome = await controller.compactNow();
      if (outcome === 'nothing') this.#note('Nothing to summarise yet: the conversation is only its latest turns.');
      else if (outcome === false) this.#note('Compact now needs a chat and a model with a known window.');
    } finally {
      this.compacting = false;
    }
  };

  #note(text: string): void {
    this.contextNotes = [...this.contextNotes.slice(-4), text];
  }

  newChat = (): void => {
    // Leaving a chat whose last turn loaded a skill, without complaint, is moving on.
    this.#noteOutcome('moved_on');
    this.#detach();
    this.#setLines(() => [], 0);
    this.draft = '';
    this.problem = null;
    this.sessionId = null;
    this.context = null;
    this.contextNotes = [];
    this.summary = null;
    chatModel.startNewChat();
  };

  /** Shows a stored conversation. */
  openSession = async (sessionId: string): Promise<void> => {
    if (sessionId === this.sessionId && this.#controller) return;
    this.newChat();
    void chatModel.openedSession(sessionId);
    try {
      const controller = await ChatController.open(await this.#deps(), sessionId);
      this.#attach(controller);
      this.sessionId = sessionId;
      this.#setLines(() => controller.lines, 0);
      this.summary = controller.session?.summary ?? null;
      void controller.measureContext().catch(() => undefined);
    } catch (error) {
      this.problem = { message: error instanceof Error ? error.message : String(error), hint: '' };
    }
  };

  /** Reloads the skill names for completion (cheap: the catalogue is in memory). */
  refreshSkills = async (): Promise<void> => {
    try {
      this.skills = (await (await appServices()).chat()).skillList();
    } catch {
      this.skills = [];
    }
  };

  async #run(action: (controller: ChatController) => Promise<boolean>): Promise<boolean> {
    if (this.#waitingToRun || (this.#generating && !this.#stopping)) return false;
    if (this.#generating) {
      // A stopped turn is still writing its last lines: this one starts when it has ended.
      this.#waitingToRun = true;
      try {
        await this.#ended;
      } finally {
        this.#waitingToRun = false;
      }
      if (this.#generating) return false;
    }
    this.#generating = true; // at once: a second Enter must not start a second turn
    this.problem = null;
    let controller: ChatController;
    try {
      controller = this.#controller ?? this.#attach(new ChatController(await this.#deps()));
    } catch (error) {
      this.#generating = false;
      this.problem = { message: `Chat could not start: ${error instanceof Error ? error.message : String(error)}`, hint: 'Reload the page; if it keeps happening, check Settings → Storage.' };
      return false;
    }
    const accepted = await action(controller);
    if (!accepted && !controller.running) this.#generating = false;
    return accepted;
  }

  async #deps(): Promise<ChatSessionDeps> {
    const services = await (await appServices()).chat();
    return {
      store: services.store,
      registry: services.registry,
      buildSystemPrompt: async (first, context) => services.buildSystemPrompt(first, { ...context, model: await this.#modelKey() }),
      skills: services.skills,
      provider: () => this.#provider(),
      context: () => this.#context(),
      chatModel: () => chatModel.forNewSession(),
      intervals: () => ({
        creationNudgeInterval: settings.current.creationNudgeInterval,
        memoryNudgeInterval: settings.current.memoryNudgeInterval,
      }),
      learning: {
        beforeUserTurn: (sessionId) => {
          services.startTurn(sessionId);
          learning.beforeUserTurn(sessionId);
        },
        afterTurn: (report) => {
          // Cases from the user's own chats (docs/gate.md, "Independent cases"): a count, never the turn's failure.
          this.#outcomes.turnLoaded(
            services.recordSkillLoads(report).catch((error: unknown) => {
              console.warn('[knack] keeping a candidate case failed', error);
              return [];
            }),
          );
          return learning.afterTurn(report);
        },
      },
    };
  }

  /** The chat model's window from the window book (docs/context-window.md); none for a console responder. */
  async #context(): Promise<ChatContext | null> {
    const choice = chatModel.choice;
    if (this.#responder || !choice) return null;
    const [book, { chatContextFor }] = await Promise.all([(await appServices()).modelWindows(), import('../../app/chatContexts')]);
    return chatContextFor(book, choice, settings.current.compactAtPercent / 100);
  }

  /** The chat model's key for the index labels (docs/gate.md, "Per-model verdicts"); undefined when none is chosen. */
  async #modelKey(): Promise<string | undefined> {
    if (this.#responder) return undefined;
    try {
      return providerModelKey(await chatModel.providerSettings());
    } catch {
      return undefined;
    }
  }

  async #provider(): Promise<ChatProvider> {
    if (this.#responder) return responderProvider(this.#responder, () => this.lines);
    // The open chat's own provider and model (the header's Chat model select).
    return createProvider(await chatModel.providerSettings(), { engineAccess: () => engineHost(), fetch: networkRequests.countingFetch });
  }

  #attach(controller: ChatController): ChatController {
    this.#detach();
    this.#controller = controller;
    this.#unsubscribe = controller.subscribe((event) => {
      switch (event.type) {
        case 'lines':
          this.#setLines(() => controller.lines, event.from);
          break;
        case 'draft':
          this.draft = event.text;
          break;
        case 'context':
          if (event.usage) this.context = event.usage;
          if (event.note) this.#note(event.note);
          break;
        case 'summary-ahead':
          this.summarisingAhead = event.busy;
          break;
        case 'session':
          this.summary = event.session.summary ?? null;
          this.sessionId = event.session.id;
          chatModel.sessionCreated(event.session.id, event.session);
          void sessions.refresh();
          break;
        case 'turn-start':
          this.#generating = true;
          this.#ended = new Promise((resolve) => (this.#endTurn = resolve));
          learning.noteGeneration(true);
          this.problem = null;
          announcer.say('Knack is replying.');
          break;
        case 'turn-end':
          this.#generating = false;
          this.#stopping = false;
          this.#endTurn();
          learning.noteGeneration(false);
          this.problem = event.problem;
          announcer.say((event.notice && ANNOUNCE_NOTICE[event.notice]) ?? ANNOUNCE_END[event.end] ?? 'Reply finished.');
          void sessions.refresh();
          break;
      }
    });
    return controller;
  }

  /** Leaves the open conversation; a reply still running there is stopped. */
  #detach(): void {
    this.#controller?.stop();
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#controller = null;
    this.#generating = false;
    this.#stopping = false;
    this.summarisingAhead = false;
    this.#endTurn();
    learning.noteGeneration(false);
  }
}

function pendingView(): ViewId {
  // The Pending view arrives with the review work; until then its items show in Activity.
  return (VIEW_IDS as readonly string[]).includes('pending') ? ('pending' as ViewId) : 'activity';
}

export const chat = new ChatState();
