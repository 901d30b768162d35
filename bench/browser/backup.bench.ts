/**
 * Backup and restore of a profile with 1,000 skills and 100 chats (docs/storage.md, "Backup and
 * restore"), through the app's own backup service on the real OPFS and IndexedDB: the backup
 * file's size, the time to build it, and the time to open, check and restore it into the profile
 * after the bench's data was deleted again (a restore into an empty library). Everything lives
 * under bench-only names and is removed afterwards.
 */
import type { BackupService } from '../../src/app/backupService';
import type { BrowserBench } from './types';
import type { KnackHandle } from './knack';

const SKILLS = 1000;
const CHATS = 100;
const MESSAGES_PER_CHAT = 20;
const CATEGORY = 'skills/bench-backup';
const PREFIX = 'bench-backup-';

interface RawDb {
  transaction(stores: string[], mode: 'readwrite'): { objectStore(name: string): { put(value: unknown, key?: string): Promise<unknown>; delete(key: string): Promise<unknown> }; done: Promise<void> };
}

function skillMd(i: number): string {
  const name = `${PREFIX}${i}`;
  const body = `## When to use\n\nUse ${name} when the task mentions step ${i}.\n\n## Steps\n\n` + '1. Read the input, check the config, run the command and note the output.\n'.repeat(20);
  return `---\nname: ${name}\ndescription: Use when a task needs procedure number ${i} of the bench library.\n---\n\n# Skill ${i}\n\n${body}`;
}

async function populate(k: KnackHandle): Promise<void> {
  const files = k.files;
  for (let start = 0; start < SKILLS; start += 32) {
    const batch = Array.from({ length: Math.min(32, SKILLS - start) }, (_, j) => start + j);
    await Promise.all(
      batch.flatMap((i) => {
        const dir = `${CATEGORY}/${PREFIX}${i}`;
        const writes = [files.write(`${dir}/SKILL.md`, skillMd(i)), files.write(`${dir}/references/notes.md`, `Notes for skill ${i}.\n`.repeat(30))];
        if (i % 10 === 0) writes.push(files.write(`${dir}/scripts/run.sh`, `#!/bin/sh\necho ${i}\n`));
        return writes;
      }),
    );
  }
  const db = k.db as unknown as RawDb;
  const tx = db.transaction(['usage', 'ledger', 'blobs', 'sessions', 'messages'], 'readwrite');
  const puts: Promise<unknown>[] = [];
  for (let i = 0; i < SKILLS; i++) {
    const name = `${PREFIX}${i}`;
    puts.push(tx.objectStore('usage').put({ skill: name, use_count: i % 7, state: 'staged', created_by: 'agent' }, name));
    puts.push(tx.objectStore('ledger').put({ id: `${PREFIX}${String(i).padStart(6, '0')}`, at: i, actor: 'agent', action: 'create', skill: name, before: [], after: [], evidence: {} }, `${PREFIX}${String(i).padStart(6, '0')}`));
    puts.push(tx.objectStore('blobs').put({ hash: `${PREFIX}${i}`, bytes: new TextEncoder().encode(skillMd(i)) }, `${PREFIX}${i}`));
  }
  for (let c = 0; c < CHATS; c++) {
    const id = `${PREFIX}chat-${c}`;
    puts.push(tx.objectStore('sessions').put({ id, title: `Bench chat ${c}`, createdAt: c, updatedAt: c, messageCount: MESSAGES_PER_CHAT, itersSinceSkill: 0, turnsSinceMemory: 0, snapshot: null }));
    for (let m = 0; m < MESSAGES_PER_CHAT; m++) {
      const content = `Message ${m} of chat ${c}: ` + 'please check the build output and run the tests again. '.repeat(5);
      puts.push(tx.objectStore('messages').put({ id: `${id}-m${m}`, sessionId: id, seq: m, role: m % 2 ? 'assistant' : 'user', content, createdAt: m }));
    }
  }
  await Promise.all([...puts, tx.done]);
}

async function removeBenchData(k: KnackHandle): Promise<void> {
  await k.files.deleteTree(CATEGORY);
  // The catalogue still lists the restored skills; later benches (the chat's skills_list) must not.
  const app = k.app as { skills(): Promise<{ engine: { catalog: { rescan(): Promise<void> } } }> } | undefined;
  await (await app?.skills())?.engine.catalog.rescan();
  const db = k.db as unknown as RawDb;
  const tx = db.transaction(['usage', 'ledger', 'blobs', 'sessions', 'messages'], 'readwrite');
  const deletes: Promise<unknown>[] = [];
  for (let i = 0; i < SKILLS; i++) {
    deletes.push(tx.objectStore('usage').delete(`${PREFIX}${i}`), tx.objectStore('ledger').delete(`${PREFIX}${String(i).padStart(6, '0')}`), tx.objectStore('blobs').delete(`${PREFIX}${i}`));
  }
  for (let c = 0; c < CHATS; c++) {
    const id = `${PREFIX}chat-${c}`;
    deletes.push(tx.objectStore('sessions').delete(id));
    for (let m = 0; m < MESSAGES_PER_CHAT; m++) deletes.push(tx.objectStore('messages').delete(`${id}-m${m}`));
  }
  await Promise.all([...deletes, tx.done]);
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Milliseconds spent in each reported phase, from the task's own progress reports. */
function phaseTimer(): { onProgress: (progress: { phase: string }) => void; phases: () => Record<string, number> } {
  const spent: Record<string, number> = {};
  let current: string | null = null;
  let since = performance.now();
  return {
    onProgress: ({ phase }) => {
      if (phase === current) return;
      const now = performance.now();
      if (current) spent[current] = round((spent[current] ?? 0) + now - since);
      current = phase;
      since = now;
    },
    phases: () => {
      if (current) spent[current] = round((spent[current] ?? 0) + performance.now() - since);
      current = null;
      return spent;
    },
  };
}

const backupRoundTrip: BrowserBench = {
  name: 'backupRoundTrip',
  async run(context) {
    const k = await context.knack();
    const app = k.app as { backup(): Promise<BackupService> } | undefined;
    if (!app) throw new Error('knack.app missing');
    const service = await app.backup();
    const populateStarted = performance.now();
    await populate(k);
    // Writing the same files and records directly (32 files in flight): the floor a restore compares with.
    const populateMs = performance.now() - populateStarted;
    try {
      const backupPhases = phaseTimer();
      const restorePhases = phaseTimer();
      let t = performance.now();
      const backup = await service.backup({ onProgress: backupPhases.onProgress });
      const backupMs = performance.now() - t;
      const backupPhasesMs = backupPhases.phases();

      await removeBenchData(k);
      t = performance.now();
      const plan = await service.open(backup.bytes, { onProgress: restorePhases.onProgress });
      const openMs = performance.now() - t;
      t = performance.now();
      const report = await service.restore(plan, { collisions: 'skip' }, { onProgress: restorePhases.onProgress });
      const restoreMs = performance.now() - t;
      const restorePhasesMs = restorePhases.phases();

      const restoredSkills = (await k.files.list(CATEGORY)).length;
      if (restoredSkills !== SKILLS) throw new Error(`restored ${restoredSkills} of ${SKILLS} skills`);
      return {
        skills: SKILLS,
        chats: CHATS,
        messages: CHATS * MESSAGES_PER_CHAT,
        files: backup.manifest.counts.files,
        records: backup.manifest.counts.records,
        sizeMB: Math.round((backup.bytes.length / (1024 * 1024)) * 100) / 100,
        backupMs: round(backupMs),
        openAndPreviewMs: round(openMs),
        restoreMs: round(restoreMs),
        roundTripMs: round(backupMs + openMs + restoreMs),
        restoredFiles: report.files,
        writeSameDataDirectlyMs: round(populateMs),
        backupPhasesMs,
        restorePhasesMs,
      };
    } finally {
      await removeBenchData(k);
    }
  },
};

export const benches: BrowserBench[] = [backupRoundTrip];
