/**
 * Backup, restore and wipe in Settings (docs/storage.md, "Backup and restore"): the form's
 * choices, the progress of the running task, the restore preview under review. The work is done
 * by the app's backup service; nothing is written before "Restore now".
 */
import { appServices } from '../../app/services';
import type { BackupService } from '../../app/backupService';
import type { RestorePlan, CollisionChoice } from '../../app/restorePlan';
import { isCancelled, type Progress } from '../../storage/progress';
import { downloadBytes } from './fileDownload';

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function service(): Promise<BackupService> {
  return (await appServices()).backup();
}

class BackupPanel {
  includeKeys = $state(false);
  passphrase = $state('');
  backupProgress = $state<Progress | null>(null);
  backupNotice = $state<string | null>(null);
  backupError = $state<string | null>(null);
  #backupAbort: AbortController | null = null;

  /** Raw: the plan holds every file of the backup, which must not become reactive proxies. */
  plan = $state.raw<RestorePlan | null>(null);
  collisions = $state<CollisionChoice>('skip');
  skillChoices = $state<Record<string, CollisionChoice>>({});
  restoreKeys = $state(false);
  restorePassphrase = $state('');
  restoreProgress = $state<Progress | null>(null);
  /** Cancel is offered until the restore reaches its commit. */
  restoreCancellable = $state(false);
  restoreNotice = $state<string | null>(null);
  restoreError = $state<string | null>(null);
  #restoreAbort: AbortController | null = null;

  wipeConfirm = $state('');
  wiping = $state(false);
  wipeError = $state<string | null>(null);

  backUp = async (): Promise<void> => {
    if (this.backupProgress) return;
    this.backupNotice = this.backupError = null;
    if (this.includeKeys && this.passphrase === '') {
      this.backupError = 'Type a passphrase to include API keys, or untick “Include provider keys”.';
      return;
    }
    const abort = (this.#backupAbort = new AbortController());
    this.backupProgress = { phase: 'Starting the backup', done: 0, total: 0 };
    try {
      const result = await (await service()).backup({
        ...(this.includeKeys ? { keysPassphrase: this.passphrase } : {}),
        signal: abort.signal,
        onProgress: (progress) => (this.backupProgress = progress),
      });
      downloadBytes(result.bytes, result.fileName);
      const { counts } = result.manifest;
      this.backupNotice = `Backed up ${counts.skills} skills, ${counts.sessions} chats and ${counts.records} records (${result.fileName})${this.includeKeys ? ', API keys encrypted' : ', without API keys'}.`;
    } catch (error) {
      this.backupError = isCancelled(error) ? 'Backup cancelled.' : message(error);
    } finally {
      this.backupProgress = null;
      this.#backupAbort = null;
    }
  };

  cancelBackup = (): void => this.#backupAbort?.abort();

  /** Reads and checks a picked backup file and shows the preview; writes nothing. */
  openFile = async (file: File): Promise<void> => {
    this.discard();
    const abort = (this.#restoreAbort = new AbortController());
    this.restoreCancellable = true;
    this.restoreProgress = { phase: 'Reading the backup file', done: 0, total: 0 };
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      this.plan = await (await service()).open(bytes, { signal: abort.signal, onProgress: (progress) => (this.restoreProgress = progress) });
    } catch (error) {
      this.restoreError = isCancelled(error) ? 'Restore cancelled.' : message(error);
    } finally {
      this.restoreProgress = null;
      this.#restoreAbort = null;
    }
  };

  setSkillChoice = (dir: string, choice: CollisionChoice): void => {
    this.skillChoices = { ...this.skillChoices, [dir]: choice };
  };

  discard = (): void => {
    this.plan = null;
    this.skillChoices = {};
    this.collisions = 'skip';
    this.restoreKeys = false;
    this.restorePassphrase = '';
    this.restoreError = this.restoreNotice = null;
  };

  restoreNow = async (): Promise<void> => {
    const plan = this.plan;
    if (!plan || this.restoreProgress) return;
    this.restoreError = this.restoreNotice = null;
    const abort = (this.#restoreAbort = new AbortController());
    this.restoreCancellable = true;
    this.restoreProgress = { phase: 'Preparing the restore', done: 0, total: 0 };
    try {
      const report = await (await service()).restore(
        plan,
        { collisions: this.collisions, skills: $state.snapshot(this.skillChoices) },
        {
          ...(this.restoreKeys && plan.preview.hasKeys ? { keysPassphrase: this.restorePassphrase } : {}),
          signal: abort.signal,
          onProgress: (progress) => {
            // Staging has begun: the restore now runs to its end or is undone as a whole.
            if (progress.phase === 'Writing files') this.restoreCancellable = false;
            this.restoreProgress = progress;
          },
        },
      );
      this.plan = null;
      this.skillChoices = {};
      this.restoreNotice = `Restored ${report.skills} skills, ${report.sessions} chats, ${report.files} files and ${report.records} records${report.keysRestored ? ', with the API keys' : ''}.`;
    } catch (error) {
      this.restoreError = isCancelled(error) ? 'Restore cancelled; nothing was changed.' : `${message(error)} Nothing was changed.`;
    } finally {
      this.restoreProgress = null;
      this.#restoreAbort = null;
    }
  };

  cancelRestore = (): void => this.#restoreAbort?.abort();

  /** Deletes everything and reloads into a fresh profile; the dialog asks for the word first. */
  wipe = async (): Promise<boolean> => {
    if (this.wipeConfirm.trim().toLowerCase() !== 'wipe' || this.wiping) return false;
    this.wiping = true;
    this.wipeError = null;
    try {
      await (await service()).wipe();
      location.reload();
      return true;
    } catch (error) {
      this.wipeError = message(error);
      this.wiping = false;
      return false;
    }
  };
}

export const backupPanel = new BackupPanel();
