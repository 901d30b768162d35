/**
 * The typed record stores of one context, opened once: the one ledger, usage store, pending
 * store and activity log every service of this context shares (src/app/appServices.ts). No
 * other module opens a raw record store; the settings records are read only by the settings
 * service, the index snapshot only by the skill catalogue.
 */
import type { ChangeFeed } from '../storage/changes';
import type { RecordStore } from '../storage/recordStore';
import type { RecordStoreOpener } from '../storage/recordStores';
import { ActivityLog } from '../review/activityLog';
import type { ActivityRecord } from '../review/activity';
import { Ledger, type BlobRecord, type LedgerEntry } from '../skills/ledger';
import { PendingStore, type PendingWrite } from '../tools/pendingWrites';
import { UsageStore, systemClock, type Clock, type UsageRecord } from '../skills/usageStore';
import type { VerdictRecord } from '../gate/types';
import type { ReplayCacheEntry } from '../gate/replayCache';

export interface KnackStores {
  usage: UsageStore;
  ledger: Ledger;
  /** Staged writes of both subsystems; every `stage` publishes `pending-changed`. */
  pending: PendingStore;
  activity: ActivityLog;
  /** The `settings` store: only the settings service (src/app/settingsService.ts) reads it. */
  settings: RecordStore<unknown>;
  /** The skill catalogue's snapshot (`index` store). */
  catalogSnapshot: RecordStore<unknown>;
  /** The gate's finished runs (`verdicts`, index `bySkill`); read through gate/verdictStore.ts. */
  verdicts: RecordStore<VerdictRecord>;
  /** The gate's replay cache (`replays`); read through gate/replayCache.ts. */
  replays: RecordStore<ReplayCacheEntry>;
  /** What sync remembers between runs (`sync`); read through sync/syncState.ts. */
  sync: RecordStore<unknown>;
}

/**
 * A pending store that tells every context when a write was staged, whoever staged it (the
 * chat's skill_manage, the memory tool, the review worker), so an open Pending view follows.
 */
class NotifyingPendingStore extends PendingStore {
  constructor(
    records: RecordStore<PendingWrite>,
    private readonly changes: ChangeFeed,
  ) {
    super(records);
  }

  override async stage(write: Omit<PendingWrite, 'id' | 'created_at'>, now?: Date): Promise<PendingWrite> {
    const record = await super.stage(write, now);
    this.changes.publish({ type: 'pending-changed' });
    return record;
  }
}

export function createKnackStores(open: RecordStoreOpener, changes: ChangeFeed, clock: Clock = systemClock): KnackStores {
  return {
    usage: new UsageStore(open<UsageRecord>('usage'), clock),
    ledger: new Ledger(open<LedgerEntry>('ledger'), open<BlobRecord>('blobs'), clock),
    pending: new NotifyingPendingStore(open<PendingWrite>('pending'), changes),
    activity: new ActivityLog(open<ActivityRecord>('activity'), changes),
    settings: open<unknown>('settings'),
    catalogSnapshot: open<unknown>('index'),
    verdicts: open<VerdictRecord>('verdicts'),
    replays: open<ReplayCacheEntry>('replays'),
    sync: open<unknown>('sync'),
  };
}
