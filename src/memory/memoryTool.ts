/**
 * The `memory` tool the model sees (docs/learning-loop.md): parameter
 * checks in Hermes' order, the write-approval gate after them (memory validates before
 * staging), then the store.
 */
import type { PendingStore } from '../tools/pendingWrites';
import type { WriteContext } from '../tools/writeContext';
import type { ToolDefinition } from '../tools/toolRegistry';
import { fail, ok, type ToolOutcome } from '../tools/toolResult';
import { isMemoryTarget, previewEntry, type MemoryTarget, usageFraction, MEMORY_FILE_NAMES } from './memoryEntries';
import type { MemoryOperation, MemoryStore } from './memoryStore';

/** Settings → memory write approval: off (default), every origin, or the review agent only. */
export type MemoryApprovalMode = 'off' | 'all' | 'review';

export interface MemoryToolDeps {
  /** Absent when memory is turned off: every call then says so. */
  store: MemoryStore | null | undefined;
  /** Where staged writes go when approval is on. */
  pending?: PendingStore;
  /** Read on every call, so a settings change applies to the next write. */
  approval?: () => MemoryApprovalMode;
  /** A write was staged (the app publishes `pending-changed`). */
  onStaged?: () => void;
}

const ACTIONS = ['add', 'replace', 'remove'] as const;
type MemoryAction = (typeof ACTIONS)[number];

export const MEMORY_TOOL_DESCRIPTION =
  'Save durable facts to persistent memory, which is shown to you at the start of every later session. ' +
  "target 'user' is the user profile (who they are, preferences, recurring corrections); target 'memory' is your own notes " +
  '(environment facts, conventions, lessons learned). Prefer one call with an `operations` batch (all-or-nothing, the size ' +
  'limit is checked on the final result): when memory is full, remove or shorten entries and add the new one in the same batch. ' +
  'Save proactively, most valuable first: preferences and corrections, then facts about the environment, then procedures. ' +
  'Skip trivial facts, task progress, logs and to-dos (session_search finds past conversations); reusable procedures belong in skills. ' +
  'replace and remove find the entry by old_text, a unique piece of its text; replace writes content as the whole new entry.';

/** The turn budget key: one per session (the chat loop resets it when a turn starts). */
function turnOf(context: WriteContext): string {
  return context.sessionId ?? '';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function quote(value: string): string {
  return `"${previewEntry(value.trim())}"`;
}

export function memoryGist(target: MemoryTarget, args: { action?: string; content?: string; old_text?: string; operations?: MemoryOperation[] }): string {
  const file = MEMORY_FILE_NAMES[target];
  if (args.operations) return `${args.operations.length} memory operation(s) on ${file}`;
  switch (args.action) {
    case 'add':
      return `add to ${file}: ${quote(args.content ?? '')}`;
    case 'replace':
      return `replace in ${file}: ${quote(args.old_text ?? '')} → ${quote(args.content ?? '')}`;
    default:
      return `remove from ${file}: ${quote(args.old_text ?? '')}`;
  }
}

function memoryDiff(args: { action?: string; content?: string; old_text?: string; operations?: MemoryOperation[] }): string {
  const ops = args.operations ?? [{ action: args.action ?? '', content: args.content, old_text: args.old_text }];
  return ops
    .map((op) => {
      const lines: string[] = [];
      if (op.action !== 'add' && op.old_text) lines.push(`- (entry containing) ${op.old_text.trim()}`);
      if (op.action !== 'remove' && op.content) lines.push(`+ ${op.content.trim()}`);
      return lines.join('\n');
    })
    .join('\n');
}

function parseOperations(value: unknown): { operations: MemoryOperation[] } | { error: string } {
  if (!Array.isArray(value)) return { error: 'operations must be an array of {action, content?, old_text?} objects.' };
  const operations: MemoryOperation[] = [];
  for (const [i, raw] of value.entries()) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: `Operation ${i + 1} must be an object like {"action": "add", "content": "..."}.` };
    const op = raw as Record<string, unknown>;
    if (typeof op.action !== 'string') return { error: `Operation ${i + 1} needs an 'action' (add, replace or remove).` };
    for (const key of ['content', 'old_text'] as const) {
      if (op[key] !== undefined && op[key] !== null && typeof op[key] !== 'string') return { error: `Operation ${i + 1}: '${key}' must be a string.` };
    }
    operations.push({ action: op.action, content: text(op.content), old_text: text(op.old_text) });
  }
  return { operations };
}

function needsApproval(deps: MemoryToolDeps, context: WriteContext): boolean {
  if (context.replayingApproval || context.origin === 'user') return false;
  const mode = deps.approval?.() ?? 'off';
  return mode === 'all' || (mode === 'review' && context.origin === 'review');
}

/** Runs one `memory` call. Exported for tests and for the Pending view's replay. */
export async function runMemoryTool(deps: MemoryToolDeps, args: Record<string, unknown>, context: WriteContext): Promise<ToolOutcome> {
  const store = deps.store;
  if (!store) return fail('Memory is not available in this session (it is turned off in Settings). Carry on without saving.');

  const rawTarget = args.target ?? 'memory';
  if (!isMemoryTarget(rawTarget)) return fail(`Invalid target '${String(rawTarget)}'. Use 'memory' (your notes) or 'user' (the user profile).`);
  const target: MemoryTarget = rawTarget;
  const options = { origin: context.origin, turn: turnOf(context) };

  if (args.operations !== undefined && args.operations !== null) {
    const parsed = parseOperations(args.operations);
    if ('error' in parsed) return fail(parsed.error);
    if (needsApproval(deps, context)) return stage(deps, target, { operations: parsed.operations }, context);
    return store.applyBatch(target, parsed.operations, options);
  }

  const action = args.action;
  if (action === undefined || action === null) {
    return fail("Missing required parameter: give 'action' (add, replace or remove) for one change, or 'operations' for a batch.");
  }
  const content = text(args.content);
  const oldText = text(args.old_text);
  if (typeof action !== 'string' || !ACTIONS.includes(action as MemoryAction)) {
    return fail(`Unknown action '${String(action)}'. Use add, replace or remove, or send 'operations' for a batch.`);
  }
  if (action === 'add' && content === undefined) return fail("content is required for 'add' action.");
  if ((action === 'replace' || action === 'remove') && !oldText?.trim()) {
    // Recoverable: show what is there so the next call can name the entry.
    const state = await store.read(target);
    return fail(`old_text is required for '${action}': give a unique piece of the entry's text, taken from current_entries.`, {
      current_entries: state.entries,
      usage: usageFraction(state.used, state.limit),
    });
  }
  if (action === 'replace' && content === undefined) return fail("content is required for 'replace' action.");

  if (needsApproval(deps, context)) return stage(deps, target, { action, content, old_text: oldText }, context);
  switch (action as MemoryAction) {
    case 'add':
      return store.add(target, content!, options);
    case 'replace':
      return store.replace(target, oldText!, content!, options);
    case 'remove':
      return store.remove(target, oldText!, options);
  }
}

async function stage(
  deps: MemoryToolDeps,
  target: MemoryTarget,
  call: { action?: string; content?: string; old_text?: string; operations?: MemoryOperation[] },
  context: WriteContext,
): Promise<ToolOutcome> {
  if (!deps.pending) return fail('Memory write approval is on but approvals are not available here. Nothing was saved; tell the user.');
  const payload: Record<string, unknown> = { target };
  for (const [key, value] of Object.entries(call)) if (value !== undefined && value !== null) payload[key] = value;
  const gist = memoryGist(target, call);
  const record = await deps.pending.stage({
    subsystem: 'memory',
    action: call.operations ? 'batch' : call.action!,
    gist,
    origin: context.origin,
    payload,
    reason: 'memory write approval is on',
    diff: memoryDiff(call),
  });
  deps.onStaged?.();
  return ok({
    staged: true,
    pending_id: record.id,
    gist,
    message: 'Staged for approval (memory write approval is on). Not saved yet — the user reviews it in Pending.',
  });
}

const OPERATION_SCHEMA = {
  type: 'object' as const,
  properties: {
    action: { type: 'string' as const, description: 'add, replace or remove', enum: ACTIONS },
    content: { type: 'string' as const, description: 'Entry text for add, or the whole new entry for replace.' },
    old_text: { type: 'string' as const, description: 'A unique piece of the entry to replace or remove.' },
  },
  required: ['action'],
};

export function memoryToolDefinition(deps: MemoryToolDeps): ToolDefinition {
  return {
    name: 'memory',
    description: MEMORY_TOOL_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', description: 'One change: add, replace or remove. Omit when sending operations.', enum: ACTIONS },
        target: { type: 'string', description: "'memory' (your notes, default) or 'user' (the user profile).", enum: ['memory', 'user'] },
        content: { type: 'string', description: 'The entry text (add), or the complete new entry (replace).' },
        old_text: { type: 'string', description: 'A unique piece of the existing entry (replace, remove).' },
        operations: {
          type: 'array',
          description: 'Several changes to one target, applied all-or-nothing; the size limit is checked on the final result.',
          items: OPERATION_SCHEMA,
        },
      },
      required: [],
    },
    run: (args, context) => runMemoryTool(deps, args, context),
  };
}
