/**
 * The threat scan for memory entries (docs/learning-loop.md).
 *
 * Memory is injected into every system prompt, so an entry is a standing instruction the
 * model will read on every turn of every later session. The scan is narrower than the skill
 * scanner (a memory entry such as "uses sudo for apt" or "clones with git clone" is a fact,
 * not a threat) but it blocks anything that tries to steer the agent, hide things from the
 * user, move data out, or plant secrets and backdoors.
 *
 * Where the skill scanner (skills/scanner.ts) already has a pattern with the same meaning, its
 * regular expression is reused under the memory pattern's id; the rest are written here.
 * Text is NFKC-normalised first so full-width or compatibility letters cannot dodge a pattern.
 */
import { THREAT_PATTERNS } from '../skills/scanner';

/** Hermes scans at most this many characters of one entry. */
export const MAX_SCAN_CHARS = 65_536;

export interface MemoryThreat {
  /** Pattern id, e.g. `prompt_injection`, or `invisible_unicode`. */
  id: string;
  /** A sentence for the error message. */
  description: string;
}

/**
 * The 17 invisible or direction-changing code points also flagged in skills. A byte-order
 * mark is blocked anywhere in an entry: memory entries have no encoding marker to excuse it.
 */
const INVISIBLE = /[\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff\u202a-\u202e\u2066-\u2069]/;

/** Filler of up to eight words between key words ("ignore *all of your* previous rules"). */
const F = String.raw`(?:\w+\s+){0,8}?`;
const MODIFY_VERB = String.raw`(?:write|writes|append|add|insert|modify|edit|update|overwrite|change|replace|alter|rewrite|delete|remove|patch)`;

function skillPattern(id: string): RegExp {
  const found = THREAT_PATTERNS.find((p) => p.id === id);
  if (!found) throw new Error(`memoryScan: the skill scanner has no pattern '${id}'`);
  return new RegExp(found.regex.source, 'i');
}

interface MemoryPattern {
  id: string;
  regexes: RegExp[];
  description: string;
}

function own(source: string): RegExp {
  return new RegExp(source, 'i');
}

/**
 * Strict scope, in the order findings are reported (the first hit names the error). The
 * groups follow Hermes' scopes: every context, then prompt-like context, then memory only.
 */
const MEMORY_PATTERNS: readonly MemoryPattern[] = [
  // Every scope: instructions that override the agent or hide from the user.
  { id: 'prompt_injection', regexes: [skillPattern('prompt_injection_ignore')], description: 'asks the agent to ignore its instructions' },
  {
    id: 'sys_prompt_override',
    regexes: [skillPattern('sys_prompt_override'), own(String.raw`\b(?:system|developer)\s+(?:prompt|message|instructions?)\s+(?:override|overridden|replacement|bypass)\b`)],
    description: 'tries to override the system prompt',
  },
  { id: 'disregard_rules', regexes: [own(String.raw`\bdisregard\s+${F}(?:rules|instructions|guidelines|policies|restrictions|safety|constraints|programming|prompts?)\b`)], description: 'asks the agent to disregard its rules' },
  {
    id: 'bypass_restrictions',
    regexes: [
      skillPattern('bypass_restrictions'),
      own(String.raw`\bact\s+as\s+(?:if|though)\s+${F}(?:have\s+no|had\s+no|don'?t\s+have|are\s+(?:free\s+of|without)|without)\s+${F}(?:restrictions|limits|limitations|rules|filters|guidelines|boundaries)\b`),
    ],
    description: 'asks the agent to get around its safeguards',
  },
  { id: 'html_comment_injection', regexes: [skillPattern('html_comment_injection')], description: 'instructions hidden in an HTML comment' },
  { id: 'hidden_div', regexes: [skillPattern('hidden_div')], description: 'content hidden from the reader with CSS' },
  { id: 'translate_execute', regexes: [skillPattern('translate_execute')], description: 'hides an instruction behind translation or decoding' },
  { id: 'deception_hide', regexes: [skillPattern('deception_hide')], description: 'tells the agent to hide something from the user' },
  { id: 'exfil_curl', regexes: [skillPattern('env_exfil_curl')], description: 'curl request carrying a secret' },
  { id: 'exfil_wget', regexes: [skillPattern('env_exfil_wget')], description: 'wget request carrying a secret' },
  { id: 'read_secrets', regexes: [skillPattern('read_secrets_file')], description: 'prints a file that usually holds secrets' },

  // Context scope: identity changes, prompt leaks, fake vendor messages, remote control.
  { id: 'role_hijack', regexes: [own(String.raw`\byou(?:\s+are|'re)\s+${F}now\s+(?:a|an|the)\b`)], description: 'tries to give the agent a new identity' },
  { id: 'role_pretend', regexes: [own(String.raw`\b(?:pretend|roleplay)\s+(?:that\s+)?(?:you\s+are|you're|to\s+be|as)\b`)], description: 'asks the agent to pretend to be someone else' },
  { id: 'leak_system_prompt', regexes: [skillPattern('leak_system_prompt'), own(String.raw`\b(?:reveal|print|output|show|repeat|leak|dump|display|disclose)\s+${F}(?:system|developer)\s+(?:prompt|message)\b`)], description: 'asks the agent to reveal its system prompt' },
  {
    id: 'remove_filters',
    regexes: [
      skillPattern('remove_filters'),
      own(String.raw`\b(?:respond|answer|reply|operate|act|work|talk|write)\s+without\s+${F}(?:safety|filters?|guardrails|restrictions|censorship|moderation)\b`),
    ],
    description: 'asks the agent to drop its safety filters',
  },
  {
    id: 'fake_update',
    regexes: [skillPattern('fake_update'), own(String.raw`\byou\s+(?:have\s+been|were|are\s+being)\s+(?:updated|upgraded|patched|reprogrammed|reconfigured)\b`)],
    description: 'pretends the agent was updated or reprogrammed',
  },
  { id: 'identity_override', regexes: [own(String.raw`\b(?:your\s+(?:new|real|true)\s+(?:name|identity|purpose)\s+is|from\s+now\s+on,?\s+you\s+(?:are|will\s+be)\s+(?:called|named|a|an))\b`)], description: "replaces the agent's identity" },
  {
    id: 'c2_beacon',
    regexes: [
      own(String.raw`\bregister\s+${F}as\s+(?:a\s+)?(?:node|bot|agent|worker)\b`),
      own(String.raw`\b(?:send|emit)\s+${F}(?:heartbeat|beacon)s?\b`),
      own(String.raw`\b(?:pull|fetch|poll|check)\s+${F}(?:for\s+)?(?:new\s+)?tasks\s+from\b`),
      own(String.raw`\bcommand[\s-]+and[\s-]+control\b|\bC2\s+server\b`),
    ],
    description: 'turns the agent into a remotely controlled node',
  },

  // Strict scope (memory): data leaving, backdoors, agent configuration, secrets.
  { id: 'send_to_url', regexes: [skillPattern('send_to_url')], description: 'tells the agent to send data to a URL' },
  {
    id: 'context_exfil',
    regexes: [
      own(String.raw`\b(?:output|send|share|print|dump|reveal|post|upload|forward|leak|export|copy|transmit|exfiltrate)\s+${F}(?:(?:full|entire|whole|complete)\s+(?:context|conversation)|(?:conversation|chat)\s+history|previous\s+messages)\b`),
    ],
    description: 'sends the conversation or context elsewhere',
  },
  { id: 'ssh_backdoor', regexes: [skillPattern('ssh_authorized_keys')], description: 'touches SSH authorized_keys' },
  { id: 'ssh_access', regexes: [skillPattern('ssh_dir_access')], description: 'reads or writes the SSH key folder' },
  { id: 'hermes_env', regexes: [skillPattern('hermes_env_access')], description: "reads the agent's own secrets file" },
  {
    id: 'agent_config_mod',
    regexes: [own(String.raw`\b${MODIFY_VERB}\b(?:\s+(?:to|into|in))?\s+${F}(?:\S*\/)?(?:AGENTS\.md|CLAUDE\.md|GEMINI\.md|\.cursorrules|\.clinerules|\.windsurfrules|copilot-instructions\.md)`)],
    description: "changes a coding agent's standing instructions",
  },
  {
    id: 'hermes_config_mod',
    regexes: [own(String.raw`\b${MODIFY_VERB}\b(?:\s+(?:to|into|in))?\s+${F}(?:\S*\/)?(?:\.hermes\/\S*|\.knack\/\S*|SOUL\.md)`)],
    description: "changes the agent's own configuration or persona",
  },
  { id: 'hardcoded_secret', regexes: [skillPattern('hardcoded_secret'), skillPattern('private_key_block')], description: 'a secret value written into memory' },
];

/** The ids this scan can report (tests check every one blocks something). */
export const MEMORY_PATTERN_IDS: readonly string[] = MEMORY_PATTERNS.map((p) => p.id);

function codePointLabel(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Every threat in a text, in pattern order (invisible characters first). */
export function findMemoryThreats(content: string): MemoryThreat[] {
  const text = content.length > MAX_SCAN_CHARS ? content.slice(0, MAX_SCAN_CHARS) : content;
  const threats: MemoryThreat[] = [];
  const invisible = INVISIBLE.exec(text);
  if (invisible) {
    threats.push({ id: 'invisible_unicode', description: `invisible unicode character ${codePointLabel(invisible[0])}` });
  }
  // NFKC folds look-alike forms (full-width letters, ligatures) onto plain letters.
  const normalized = text.normalize('NFKC');
  for (const pattern of MEMORY_PATTERNS) {
    if (pattern.regexes.some((re) => re.test(normalized))) threats.push({ id: pattern.id, description: pattern.description });
  }
  return threats;
}

/** The refusal for a write, or null when the content is clean (first finding only). */
export function scanMemoryContent(content: string): string | null {
  const [first] = findMemoryThreats(content);
  if (!first) return null;
  if (first.id === 'invisible_unicode') {
    return `Blocked: content contains ${first.description}, which can hide text from the user. Remove it and retry.`;
  }
  return (
    `Blocked: content matches threat pattern '${first.id}' (${first.description}). ` +
    'Memory is read as instructions in every later session, so this entry was not saved. Rephrase it as a plain fact.'
  );
}
