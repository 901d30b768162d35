import type { Ledger, LedgerEntry } from './ledger';
import type { UsageRecord, UsageStore } from './usageStore';
import type { InstalledSource } from './installedSource';
import type { ArrivedVerdict } from './modelVerdicts';

type InstalledSourceRecord = NonNullable<UsageRecord['installed_from']>;

/**
 * The records that describe a file change: its ledger entry and its usage-record update.
 * They travel with the change (in the journal intent for multi-file changes) and are applied
 * when the files are committed — by the writer, or by start-up recovery when the writer died
 * after the commit point — so the ledger matches the files (docs/storage.md, guarantee 5).
 */
export type UsageEffect =
  /** `installedFrom`: the skill was installed from a link (src/install/); its source record. */
  | { op: 'created'; name: string; source: UsageRecord['source']; installedFrom?: InstalledSource }
  | { op: 'bumpPatch'; name: string }
  | { op: 'forget'; name: string }
  | { op: 'setState'; name: string; state: UsageRecord['state'] }
  | { op: 'setPinned'; name: string; pinned: boolean }
  /** A gate run applied to the skill (gate/gateEffects.ts). */
  | { op: 'applyVerdict'; name: string; verification: UsageRecord['verification']; verdictId: string; modelKey?: string }
  /** Verdicts another device measured on the bytes this change writes (sync, docs/sync.md "Proof travels"). */
  | { op: 'acceptArrivedVerdicts'; name: string; verdicts: ArrivedVerdict[] }
  /** The user approved the staged verdict `verdictId`. */
  | { op: 'approveVerdict'; name: string; verdictId: string }
  /** The verdict stopped (or, bytes back to the measured ones, resumed) describing the skill. */
  | { op: 'setVerificationStale'; name: string; stale: boolean }
  /**
   * An installed skill was updated from its source (src/install/update.ts), or such an update was
   * rolled back: its source record becomes `installedFrom`, and a verdict measured on the old bytes
   * goes stale (docs/install.md, "Updates").
   */
  | { op: 'setInstalledFrom'; name: string; installedFrom: InstalledSourceRecord | null; staleVerdict: boolean };

export interface CommitEffects {
  ledger?: LedgerEntry;
  /**
   * The entries of several skill changes committed as one journal intent (a batched import,
   * zipImport.ts): still one entry per skill, appended in one transaction.
   */
  ledgerBatch?: LedgerEntry[];
  usage?: UsageEffect[];
}

export function isCommitEffects(value: unknown): value is CommitEffects {
  return !!value && typeof value === 'object' && ('ledger' in value || 'usage' in value || 'ledgerBatch' in value);
}

/** One CommitEffects for a batch: every entry, every usage op in order. */
export function mergeCommitEffects(batch: readonly (CommitEffects | undefined)[]): CommitEffects {
  const ledgerBatch: LedgerEntry[] = [];
  const usage: UsageEffect[] = [];
  for (const effects of batch) {
    if (effects?.ledger) ledgerBatch.push(effects.ledger);
    if (effects?.ledgerBatch) ledgerBatch.push(...effects.ledgerBatch);
    if (effects?.usage) usage.push(...effects.usage);
  }
  return { ledgerBatch, usage };
}

/** Idempotent for the ledger (fixed entry id); usage bumps may count twice after a crash. */
export async function applyCommitEffects(effects: CommitEffects, deps: { ledger: Ledger; usage: UsageStore }): Promise<void> {
  // The ledger entry and the usage records live in different stores and neither waits for
  // the other: their transactions run side by side instead of one round trip after another.
  const entries = [...(effects.ledger ? [effects.ledger] : []), ...(effects.ledgerBatch ?? [])];
  await Promise.all([entries.length ? deps.ledger.appendMany(entries) : undefined, applyUsageEffects(effects.usage ?? [], deps.usage)]);
}

async function applyUsageEffects(effects: UsageEffect[], usage: UsageStore): Promise<void> {
  // A batch of creations (and the forgets of replaced skills) goes in one transaction.
  if (effects.length > 1 && effects.every((effect) => effect.op === 'created' || effect.op === 'forget')) {
    await usage.lifecycleMany(effects as Array<Extract<UsageEffect, { op: 'created' | 'forget' }>>);
    return;
  }
  for (const effect of effects) {
    switch (effect.op) {
      case 'created':
        await usage.recordCreated(effect.name, effect.source, effect.installedFrom);
        break;
      case 'bumpPatch':
        await usage.bumpPatch(effect.name);
        break;
      case 'forget':
        await usage.forget(effect.name);
        break;
      case 'setState':
        await usage.setState(effect.name, effect.state);
        break;
      case 'setPinned':
        await usage.setPinned(effect.name, effect.pinned);
        break;
      case 'applyVerdict':
        await usage.applyVerdict(effect.name, effect.verification, effect.verdictId, effect.modelKey);
        break;
      case 'acceptArrivedVerdicts':
        await usage.acceptArrivedVerdicts(effect.name, effect.verdicts);
        break;
      case 'approveVerdict':
        await usage.approveVerdict(effect.name, effect.verdictId);
        break;
      case 'setVerificationStale':
        await usage.setVerificationStale(effect.name, effect.stale);
        break;
      case 'setInstalledFrom':
        await usage.setInstalledFrom(effect.name, effect.installedFrom, effect.staleVerdict);
        break;
    }
  }
}
