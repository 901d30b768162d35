/**
 * Slash commands typed into the chat box (docs/chat.md): `/<skill-name> [request]` loads that
 * skill into the turn; the rest open views. Parsing is pure; the chat state acts on it.
 */
export type SlashCommand =
  | { kind: 'open'; view: 'skills' | 'memory' | 'pending' }
  | { kind: 'new-chat' }
  | { kind: 'search'; query: string }
  | { kind: 'skill'; name: string; request: string }
  | { kind: 'unknown'; name: string };

export interface SlashSuggestion {
  command: string;
  description: string;
}

export const BUILTIN_COMMANDS: readonly SlashSuggestion[] = [
  { command: '/skills', description: 'Open the skill library' },
  { command: '/memory', description: 'Open memory' },
  { command: '/new', description: 'Start a new chat' },
  { command: '/search', description: 'Search past chats: /search <words>' },
  { command: '/pending', description: 'Review writes waiting for approval' },
];

/** Null when the text is an ordinary message. */
export function parseSlashCommand(text: string, skillNames: ReadonlySet<string>): SlashCommand | null {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('/') || trimmed.startsWith('//')) return null;
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(trimmed.trimEnd());
  if (!match) return null;
  const name = match[1]!;
  const rest = (match[2] ?? '').trim();
  switch (name) {
    case 'skills':
      return { kind: 'open', view: 'skills' };
    case 'memory':
      return { kind: 'open', view: 'memory' };
    case 'pending':
      return { kind: 'open', view: 'pending' };
    case 'new':
      return { kind: 'new-chat' };
    case 'search':
      return { kind: 'search', query: rest };
  }
  if (skillNames.has(name)) return { kind: 'skill', name, request: rest };
  return { kind: 'unknown', name };
}

/**
 * Completions for what has been typed so far ("/" followed by a prefix, no space yet).
 * Each command appears once: a skill named like a built-in (`memory`) cannot be reached by
 * `/memory` (parseSlashCommand opens the view), and two skills can share a name, so the first
 * suggestion for a command wins and the menu never holds the same command twice.
 */
export function completeSlash(text: string, skills: ReadonlyArray<{ name: string; description: string }>, limit = 8): SlashSuggestion[] {
  const match = /^\/(\S*)$/.exec(text);
  if (!match) return [];
  const prefix = match[1]!.toLowerCase();
  const skillSuggestions = skills.map((s) => ({ command: `/${s.name}`, description: s.description }));
  const seen = new Set<string>();
  const suggestions: SlashSuggestion[] = [];
  for (const suggestion of [...BUILTIN_COMMANDS, ...skillSuggestions]) {
    if (suggestions.length >= limit) break;
    if (seen.has(suggestion.command) || !suggestion.command.slice(1).toLowerCase().startsWith(prefix)) continue;
    seen.add(suggestion.command);
    suggestions.push(suggestion);
  }
  return suggestions;
}
