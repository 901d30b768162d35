/**
 * "Install from a link" in the Skills view (docs/install.md): the dialog's link, its lookup with
 * progress per file and Cancel, and the message when a host refuses. What the lookup finds opens
 * the zip import's review (skillZip.openLookup): nothing is written before Import.
 */
import { appServices } from '../../app/services';
import { installNetworkOptions } from '../../app/installServices';
import { lookUpLink } from '../../install/installFromLink';
import { isCancelled, type Progress } from '../../storage/progress';
import { networkRequests } from './network.svelte';
import { skillsLibrary } from './skills.svelte';
import { skillZip } from './skillZip.svelte';

class SkillLink {
  open = $state(false);
  link = $state('');
  busy = $state(false);
  error = $state<string | null>(null);
  progress = $state.raw<Progress | null>(null);
  #abort: AbortController | null = null;

  openDialog = (): void => {
    this.open = true;
    this.error = null;
  };

  close = (): void => {
    if (this.busy) this.cancel();
    this.open = false;
    this.error = null;
  };

  cancel = (): void => {
    this.#abort?.abort();
  };

  lookUp = async (): Promise<void> => {
    if (this.busy) return;
    const link = this.link.trim();
    this.error = null;
    const abort = new AbortController();
    this.#abort = abort;
    this.busy = true;
    this.progress = { phase: 'Looking up', done: 0, total: 0, item: link };
    try {
      const [app, services] = await Promise.all([appServices(), skillsLibrary.start()]);
      const found = await lookUpLink(link, {
        ...installNetworkOptions(app.settings, networkRequests.countingFetch),
        signal: abort.signal,
        onProgress: (progress) => {
          this.progress = progress;
        },
        exists: (name) => services.engine.catalog.findByName(name).length > 0,
      });
      this.open = false;
      skillZip.openLookup(found.plan, found.sources);
    } catch (error) {
      this.error = isCancelled(error) || abort.signal.aborted ? 'The lookup was cancelled; nothing was installed.' : error instanceof Error ? error.message : String(error);
    } finally {
      this.busy = false;
      this.progress = null;
      this.#abort = null;
    }
  };
}

export const skillLink = new SkillLink();
