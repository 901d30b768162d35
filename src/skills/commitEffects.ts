import type { Ledger, LedgerEntry } from './ledger';
import type { UsageRecord, UsageStore } from './usageStore';

/**
 * The records that describe a file change: its ledger entry and its usage-record update.
 * They travel with the change (in the journal intent for multi-file changes) and are applied
 * when the files are committed — by the writer, or by start-up recovery when the writer died
 * after the commit point — so the ledger matches the files (SPEC §3.3 inv. 5, §18).
 */
export type UsageEffect =
  | { op: 'created'; name: string; source: UsageRecord['source'] }
  | { op: 'bumpPatch'; name: string }
  | { op: 'forget'; name: string }
  | { op: 'setState'; name: string; state: UsageRecord['state'] };

export interface CommitEffects {
  ledger?: LedgerEntry;
  usage?: UsageEffect[];
}

export function isCommitEffects(value: unknown): value is CommitEffects {
  return !!value && typeof value === 'object' && ('ledger' in value || 'usage' in value);
}

/** Idempotent for the ledger (fixed entry id); usage bumps may count twice after a crash. */
export async function applyCommitEffects(effects: CommitEffects, deps: { ledger: Ledger; usage: UsageStore }): Promise<void> {
  if (effects.ledger) await deps.ledger.append(effects.ledger);
  for (const effect of effects.usage ?? []) {
    switch (effect.op) {
      case 'created':
        await deps.usage.recordCreated(effect.name, effect.source);
        break;
      case 'bumpPatch':
        await deps.usage.bumpPatch(effect.name);
        break;
      case 'forget':
        await deps.usage.forget(effect.name);
        break;
      case 'setState':
        await deps.usage.setState(effect.name, effect.state);
        break;
    }
  }
}
