import { MemoryFileStore, MemoryLockManager } from '../../../src/storage/memoryFileStore';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';
import { SkillCatalog } from '../../../src/skills/skillCatalog';
import { UsageStore, type UsageRecord } from '../../../src/skills/usageStore';
import { Ledger, type BlobRecord, type LedgerEntry } from '../../../src/skills/ledger';
import { PendingStore, type PendingWrite } from '../../../src/tools/pendingWrites';
import { DirectCommitter } from '../../../src/skills/fileChanges';
import { applyCommitEffects } from '../../../src/skills/commitEffects';
import { defaultSkillSettings, type SkillEngine, type SkillSettings } from '../../../src/skills/skillEngine';
import { ToolRegistry } from '../../../src/tools/toolRegistry';
import { skillToolDefinitions } from '../../../src/skills/tools/skillToolDefinitions';
import { createWriteContext, type WriteOrigin } from '../../../src/tools/writeContext';

/** A skill engine on the in-memory stores, with a controllable clock and settings. */
export function createTestEngine(overrides: Partial<SkillSettings> = {}) {
  const files = new MemoryFileStore();
  let now = new Date('2026-11-01T12:00:00Z');
  const clock = () => new Date(now);
  const settings: SkillSettings = { ...defaultSkillSettings, ...overrides };
  const usageRecords = new MemoryRecordStore<UsageRecord>();
  const usage = new UsageStore(usageRecords, clock);
  const ledger = new Ledger(new MemoryRecordStore<LedgerEntry>(), new MemoryRecordStore<BlobRecord>(), clock);
  const engine: SkillEngine = {
    files,
    locks: new MemoryLockManager(),
    catalog: new SkillCatalog(files),
    usage,
    ledger,
    pending: new PendingStore(new MemoryRecordStore<PendingWrite>()),
    committer: new DirectCommitter(files, (effects) => applyCommitEffects(effects, { ledger, usage })),
    settings: () => settings,
    clock,
  };
  const registry = new ToolRegistry(skillToolDefinitions(engine));
  const foreground = createWriteContext('foreground');

  /** Calls a tool like the agent loop does and parses the JSON result. */
  async function call(tool: string, args: unknown, context = foreground): Promise<Record<string, any>> {
    const text = await registry.dispatch(tool, args, context);
    return JSON.parse(text);
  }

  return {
    engine,
    files,
    settings,
    registry,
    usageRecords,
    call,
    manage: (args: Record<string, unknown>, context = foreground) => call('skill_manage', args, context),
    context: (origin: WriteOrigin) => createWriteContext(origin),
    advanceDays(days: number) {
      now = new Date(now.getTime() + days * 86_400_000);
    },
  };
}

export const VALID_SKILL_CONTENT = `---
name: test-skill
description: A test skill for unit testing.
---

# Test Skill

Step 1: Do the thing.
`;

export const VALID_SKILL_CONTENT_2 = `---
name: test-skill
description: Updated description.
---

# Test Skill

Step 1: Do the new thing.
`;

export function skillContent(name: string, description = `Use for ${name}.`, body = `# ${name}\n\nStep 1: Do the thing.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;
}
