/**
 * A tool call in words a person reads ("Saved skill release-notes", "Searched past chats for
 * …"), for the chat and the Activity view; the raw call stays one click away there. Pure: the
 * call's name and JSON arguments in, one short sentence out (docs/chat.md, "Tool calls").
 */

/** Where the call is: still running, finished, or finished with a failure. */
export type ToolCallState = 'running' | 'done' | 'failed';

/** One label in its three states. */
interface Phrases {
  running: string;
  done: string;
  failed: string;
}

/** Long names and queries are cut, so a label stays one line. */
const MAX_VALUE = 60;

function clip(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_VALUE ? `${flat.slice(0, MAX_VALUE - 1)}…` : flat;
}

function argumentsOf(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function text(args: Record<string, unknown>, key: string): string | null {
  const value = args[key];
  return typeof value === 'string' && value.trim() !== '' ? clip(value) : null;
}

/** Three forms of "<verb> <object>": `-ing`, past, and "Could not <base>". */
function phrases(ing: string, past: string, base: string, object: string): Phrases {
  const tail = object ? ` ${object}` : '';
  return { running: `${ing}${tail}…`, done: `${past}${tail}`, failed: `Could not ${base}${tail}` };
}

const SKILL_ACTIONS: Record<string, [ing: string, past: string, base: string]> = {
  create: ['Saving', 'Saved', 'save'],
  edit: ['Rewriting', 'Rewrote', 'rewrite'],
  patch: ['Updating', 'Updated', 'update'],
  delete: ['Deleting', 'Deleted', 'delete'],
};

function skillManage(args: Record<string, unknown>): Phrases {
  const skill = `skill ${text(args, 'name') ?? '(no name)'}`;
  const action = text(args, 'action') ?? '';
  const file = text(args, 'file_path') ?? 'a file';
  if (action === 'write_file') return phrases('Adding', 'Added', 'add', `${file} to ${skill}`);
  if (action === 'remove_file') return phrases('Removing', 'Removed', 'remove', `${file} from ${skill}`);
  const verbs = SKILL_ACTIONS[action];
  if (verbs) return phrases(...verbs, skill);
  return phrases('Changing', 'Changed', 'change', skill);
}

function skillView(args: Record<string, unknown>): Phrases {
  const skill = `skill ${text(args, 'name') ?? '(no name)'}`;
  const file = text(args, 'file_path');
  return phrases('Reading', 'Read', 'read', file ? `${file} of ${skill}` : skill);
}

function skillsList(args: Record<string, unknown>): Phrases {
  const category = text(args, 'category');
  return phrases('Listing', 'Listed', 'list', category ? `skills in ${category}` : 'skills');
}

const MEMORY_VERBS: Record<string, [ing: string, past: string, base: string, preposition: string]> = {
  add: ['Saving', 'Saved', 'save', 'to'],
  replace: ['Updating', 'Updated', 'update', 'in'],
  remove: ['Removing', 'Removed', 'remove', 'from'],
};

function memory(args: Record<string, unknown>): Phrases {
  const where = text(args, 'target') === 'user' ? 'the user profile' : 'memory';
  if (Array.isArray(args.operations)) {
    const count = args.operations.length;
    return phrases('Changing', 'Changed', 'change', `${where} (${count} ${count === 1 ? 'change' : 'changes'})`);
  }
  const verbs = MEMORY_VERBS[text(args, 'action') ?? ''];
  if (!verbs) return phrases('Changing', 'Changed', 'change', where);
  const [ing, past, base, preposition] = verbs;
  const what = preposition === 'to' ? 'a note' : 'an entry';
  return phrases(ing, past, base, `${what} ${preposition} ${where}`);
}

function sessionSearch(args: Record<string, unknown>): Phrases {
  const query = text(args, 'query');
  return phrases('Searching', 'Searched', 'search', query ? `past chats for “${query}”` : 'past chats');
}

const LABELS: Record<string, (args: Record<string, unknown>) => Phrases> = {
  skill_manage: skillManage,
  skill_view: skillView,
  skills_list: skillsList,
  memory,
  session_search: sessionSearch,
};

/** A forged tool's output in a label: numbers as a person writes them ("1,234.50"), the rest clipped. */
function formatOutput(output: unknown): string {
  if (typeof output === 'number' && Number.isFinite(output)) {
    const fraction = Number.isInteger(output) ? 0 : Math.max(2, Math.min(6, (String(output).split('.')[1] ?? '').length));
    return output.toLocaleString('en-US', { minimumFractionDigits: fraction, maximumFractionDigits: fraction });
  }
  if (typeof output === 'string') return clip(output);
  try {
    return clip(JSON.stringify(output) ?? '');
  } catch {
    return '';
  }
}

/**
 * A forged tool (offered as `<skill>__<tool>`, docs/forged-tools.md): "Ran vat-total: 1,234.50",
 * the tool named as its result names it, and the output taken from the result once there is one.
 */
function forgedTool(name: string, resultJson: string | undefined): Phrases {
  let tool = name.slice(name.indexOf('__') + 2);
  let output: string | null = null;
  try {
    const result = resultJson ? (JSON.parse(resultJson) as { success?: unknown; tool?: unknown; output?: unknown }) : null;
    if (typeof result?.tool === 'string') tool = result.tool;
    if (result?.success === true && 'output' in result) output = formatOutput(result.output);
  } catch {
    // A result that is not JSON shows the plain label.
  }
  const tail = output ? `: ${output}` : '';
  return { running: `Running ${tool}…`, done: `Ran ${tool}${tail}`, failed: `Could not run ${tool}` };
}

/** The call as a sentence; a tool without its own words is named as it is. `resultJson` lets a forged tool show its output. */
export function toolCallLabel(name: string, argumentsJson: string, state: ToolCallState, resultJson?: string): string {
  if (name.includes('__')) return forgedTool(name, resultJson)[state];
  const label = LABELS[name];
  if (!label) return phrases('Calling', 'Called', 'call', clip(name) || 'a tool')[state];
  return label(argumentsOf(argumentsJson))[state];
}
