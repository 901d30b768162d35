import type { RecordStore } from '../storage/recordStore';
import type { VerdictRecord } from './types';

/**
 * The gate's evidence (IndexedDB `verdicts`, docs/gate.md "Evidence"): the full record of every
 * finished run, keyed by run id and found per skill through the store's `bySkill` index. A
 * record is written once when its run ends; afterwards only an approval changes it.
 */
export const VERDICTS_BY_SKILL = 'bySkill';

/** The bytes a verdict is about: SKILL.md and the canonical evals, each as a SHA-256. */
export interface MeasuredHashes {
  skillHash: string;
  casesHash: string;
}

export type Freshness = 'fresh' | 'stale';

/**
 * Whether a verdict still describes the skill: any edit of SKILL.md or of evals/ changes one
 * of the two hashes, and from then on the verdict says nothing about the current bytes.
 */
export function freshness(record: MeasuredHashes, current: MeasuredHashes): Freshness {
  return record.skillHash === current.skillHash && record.casesHash === current.casesHash ? 'fresh' : 'stale';
}

/**
 * The status a finished run is stored with: `superseded` when the skill or its cases changed
 * while it ran (it is kept as history and never applied), `applied` otherwise.
 */
export function settleRun(record: VerdictRecord, current: MeasuredHashes | null): VerdictRecord {
  const superseded = current === null || freshness(record, current) === 'stale';
  return { ...record, status: superseded ? 'superseded' : 'applied' };
}

/** Newest first: by finish time, then by id (run ids are unique), so the order is total. */
function newestFirst(a: VerdictRecord, b: VerdictRecord): number {
  if (a.finishedAt !== b.finishedAt) return a.finishedAt < b.finishedAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export type ApproveResult = { success: true; record: VerdictRecord } | { success: false; error: string };

export class VerdictStore {
  constructor(private readonly records: RecordStore<VerdictRecord>) {}

  async put(record: VerdictRecord): Promise<void> {
    await this.records.put(record.id, record);
  }

  async get(id: string): Promise<VerdictRecord | null> {
    return (await this.records.get(id)) ?? null;
  }

  /** Every run of the skill, superseded ones included, newest first. */
  async history(skill: string): Promise<VerdictRecord[]> {
    const records = this.records.getAllByIndex
      ? await this.records.getAllByIndex(VERDICTS_BY_SKILL, skill)
      : (await this.records.getAll()).filter((record) => record.skill === skill);
    return records.sort(newestFirst);
  }

  /** The runs of one skill version (ledger sequence number), newest first. */
  async historyOfVersion(skill: string, skillVersion: number): Promise<VerdictRecord[]> {
    return (await this.history(skill)).filter((record) => record.skillVersion === skillVersion);
  }

  /** The newest applied run: the verdict that counts. Superseded runs never are. */
  async latest(skill: string): Promise<VerdictRecord | null> {
    return (await this.history(skill)).find((record) => record.status === 'applied') ?? null;
  }

  /**
   * Records the user's approval of a staged verdict (`approvedBy: 'user'`: the label becomes
   * [approved], never [verified]). Only the skill's current verdict can be approved, and only
   * when it is staged: a promoted one needs no approval and a rejected one is evidence against.
   */
  async approve(skill: string, recordId: string): Promise<ApproveResult> {
    const record = await this.get(recordId);
    if (!record || record.skill !== skill) return { success: false, error: `No verification run ${recordId} of '${skill}' is stored.` };
    const current = await this.latest(skill);
    if (current?.id !== recordId) {
      return { success: false, error: `Run ${recordId} is not the current verdict of '${skill}'; approve the newest run instead.` };
    }
    if (record.verdict.verdict !== 'staged') {
      return { success: false, error: `Only a staged verdict can be approved; '${skill}' is ${record.verdict.verdict}.` };
    }
    // Set on the record as stored, in one transaction: nothing else of it is rewritten from
    // this read (records are written once; callers hold the skill's lock, gate/gateEffects.ts).
    let approved: VerdictRecord = { ...record, approvedBy: 'user' };
    await this.records.updateMany([recordId], ([stored]) => {
      approved = { ...(stored ?? record), approvedBy: 'user' };
      return { put: [[recordId, approved]] };
    });
    return { success: true, record: approved };
  }
}
