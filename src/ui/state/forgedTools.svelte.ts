/**
 * View state of a skill's forged tools in the skill view (docs/forged-tools.md, "Use"): the
 * tools with their last proof, and the user's Check again, switch and delete. Everything goes
 * through ForgedToolServices (app/forgedToolServices.ts); no rule lives here.
 */
import { appServices } from '../../app/services';
import type { ForgedToolServices, ForgedToolView } from '../../app/forgedToolServices';

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function forgedToolServices(): Promise<ForgedToolServices> {
  return (await appServices()).forgedTools();
}

class ForgedToolsState {
  skill = $state<string | null>(null);
  tools = $state.raw<ForgedToolView[]>([]);
  /** The tool being checked or changed, for its buttons' busy state. */
  busyTool = $state<string | null>(null);
  error = $state<string | null>(null);
  #token = 0;
  #subscribed = false;

  open = async (skill: string): Promise<void> => {
    if (this.skill !== skill) {
      this.skill = skill;
      this.tools = [];
      this.error = null;
    }
    await this.#follow();
    await this.refresh();
  };

  refresh = async (): Promise<void> => {
    const skill = this.skill;
    if (!skill) return;
    const token = ++this.#token;
    try {
      const tools = await (await forgedToolServices()).list(skill);
      if (token === this.#token) this.tools = tools;
    } catch (error) {
      if (token === this.#token) this.error = message(error);
    }
  };

  async #follow(): Promise<void> {
    if (this.#subscribed) return;
    this.#subscribed = true;
    (await appServices()).changes.subscribe((change) => {
      if ((change.type === 'skill-changed' || change.type === 'verdict-changed') && change.name === this.skill) void this.refresh();
    });
  }

  async #act(tool: string, action: (services: ForgedToolServices, skill: string) => Promise<string | null>): Promise<void> {
    const skill = this.skill;
    if (!skill || this.busyTool) return;
    this.busyTool = tool;
    this.error = null;
    try {
      this.error = await action(await forgedToolServices(), skill);
    } catch (error) {
      this.error = message(error);
    } finally {
      this.busyTool = null;
      await this.refresh();
    }
  }

  checkAgain = (tool: string) =>
    this.#act(tool, async (services, skill) => {
      const proof = await services.check(skill, tool);
      return 'error' in proof ? proof.error : null;
    });

  setEnabled = (tool: string, enabled: boolean) => this.#act(tool, async (services, skill) => (await services.setEnabled(skill, tool, enabled), null));

  remove = (tool: string) =>
    this.#act(tool, async (services, skill) => {
      const outcome = await services.remove(skill, tool);
      return outcome.success ? null : outcome.error;
    });
}

export const forgedToolsView = new ForgedToolsState();
