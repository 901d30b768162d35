/**
 * The form of a forged tool (docs/forged-tools.md, "The form"; SPEC §10.4): a skill may carry
 * `tools/<tool>.js` (plain JavaScript defining `run(input)`), `tools/<tool>.json` (its name,
 * description and JSON schemas) and the tool's cases in `evals/tool-cases.json` (gate/toolCases.ts).
 * This module checks the first two as text, without running anything: a syntax check needs
 * the sandbox and happens in the file rule (gate/toolFileRules.ts).
 */
import { schemaProblems } from './jsonSchemaSubset';
import { jsonErrorOffset } from './jsonErrorOffset';

export const TOOLS_DIR = 'tools';
export const TOOL_CASES_FILE = 'evals/tool-cases.json';

/** Tool names: like skill names without dots, so `<skill>__<tool>` stays in a provider's tool-name charset. */
export const TOOL_NAME_RE = /^[a-z0-9][a-z0-9_-]*$/;
export const MAX_TOOL_NAME_LENGTH = 40;
/** A tool is a procedure, not a program: long code is judgment in disguise or a library. */
export const MAX_TOOL_CODE_CHARS = 20_000;
export const MAX_TOOL_MANIFEST_CHARS = 10_000;
/**
 * The description rides in every chat request while the tool is offered, on windows of 4,096
 * tokens (docs/forged-tools.md, "Use"): one sentence saying when to call it.
 */
export const MAX_TOOL_DESCRIPTION_CHARS = 160;
/** Longest name a provider accepts for a tool (OpenAI: 64, `^[a-zA-Z0-9_-]+$`). */
export const MAX_OFFERED_NAME_LENGTH = 64;

export interface ToolManifest {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  [field: string]: unknown;
}

export type ToolPathKind = { kind: 'code'; tool: string } | { kind: 'manifest'; tool: string } | { kind: 'cases' } | { kind: 'other'; error: string };

/** What a path of a skill's folder is for forged tools; null when it is not theirs. */
export function toolPathKind(relativePath: string): ToolPathKind | null {
  if (relativePath === TOOL_CASES_FILE) return { kind: 'cases' };
  if (!relativePath.startsWith(`${TOOLS_DIR}/`)) return null;
  const rest = relativePath.slice(TOOLS_DIR.length + 1);
  const match = /^([^/]+)\.(js|json)$/.exec(rest);
  const hint = "A tool is two files: 'tools/<tool-name>.js' (the code) and 'tools/<tool-name>.json' (name, description, input_schema).";
  if (!match) return { kind: 'other', error: `'${relativePath}' is not a tool file. ${hint}` };
  const nameError = validateToolName(match[1]!);
  if (nameError) return { kind: 'other', error: nameError };
  return match[2] === 'js' ? { kind: 'code', tool: match[1]! } : { kind: 'manifest', tool: match[1]! };
}

export function validateToolName(name: unknown): string | null {
  if (typeof name !== 'string' || name === '') return 'Tool name is required.';
  if (name.length > MAX_TOOL_NAME_LENGTH) return `Tool name '${name}' exceeds ${MAX_TOOL_NAME_LENGTH} characters.`;
  if (!TOOL_NAME_RE.test(name)) {
    return `Invalid tool name '${name}'. Use lowercase letters, digits, hyphens and underscores, starting with a letter or digit (e.g. 'vat-total').`;
  }
  return null;
}

/** "line 3, column 7" of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** JSON.parse with the error's line and column in words; V8 reports only a position. */
export function parseJsonWithLine(text: string, label: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const where = lineAndColumn(text, jsonErrorOffset(text));
    // V8's message quotes the whole text when it is short; the line and column say enough.
    const detail = (error as Error).message.split(/, "|\n/)[0]!.replace(/ in JSON at position \d+.*$/, '');
    return { ok: false, error: `${label} is not valid JSON at line ${where.line}, column ${where.column}: ${detail}. Fix the JSON and write the whole file again.` };
  }
}

/** Removes comments and string contents so the word checks below look at code only. */
function codeWithoutLiterals(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, (literal) =>
    literal.replace(/[^\n]/g, ' '),
  );
}

const FORBIDDEN_WORDS: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /(^|[^.\w$])import\s*[({*\w'"]/m, what: 'import' },
  { pattern: /(^|[^.\w$])export\s/m, what: 'export' },
  { pattern: /(^|[^.\w$])require\s*\(/m, what: 'require()' },
];

const DEFINES_RUN = /(^|[^.\w$])(function\s*\*?\s*run\s*\(|(const|let|var)\s+run\s*=)/m;

/**
 * Text checks of `tools/<tool>.js`: not empty, within the size limit, no module syntax
 * (the sandbox has no modules; a tool is self-contained), and a `run` defined at top level.
 */
export function checkToolCode(code: string, label: string): string | null {
  if (code.trim() === '') return `${label} is empty. Write a function run(input) { ... } that returns a JSON value.`;
  if (code.length > MAX_TOOL_CODE_CHARS) {
    return `${label} is ${code.length.toLocaleString('en-US')} characters (limit: ${MAX_TOOL_CODE_CHARS.toLocaleString('en-US')}). A tool does one procedure; keep judgment in SKILL.md.`;
  }
  const bare = codeWithoutLiterals(code);
  for (const { pattern, what } of FORBIDDEN_WORDS) {
    const match = pattern.exec(bare);
    if (match) {
      const { line } = lineAndColumn(code, match.index + match[1]!.length);
      return `${label} uses ${what} at line ${line}. A tool runs alone in a sandbox: no modules, no imports; put everything it needs in this file.`;
    }
  }
  if (!DEFINES_RUN.test(bare)) return `${label} does not define run. Add function run(input) { ... } returning a JSON value (number, string, object…).`;
  return null;
}

export type ManifestCheck = { ok: true; manifest: ToolManifest } | { ok: false; error: string; problems?: string[] };

function schemaCheck(value: unknown, field: string, label: string): string[] {
  return schemaProblems(value, field).map((problem) => `${label}: ${problem}`);
}

/** Parses and checks `tools/<tool>.json`; `tool` is the file's name, which `name` must equal. */
export function parseToolManifest(text: string, tool: string): ManifestCheck {
  const label = `tools/${tool}.json`;
  if (text.length > MAX_TOOL_MANIFEST_CHARS) return { ok: false, error: `${label} exceeds ${MAX_TOOL_MANIFEST_CHARS.toLocaleString('en-US')} characters.` };
  const parsed = parseJsonWithLine(text, label);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `${label} must be a JSON object: {"name", "description", "input_schema", "output_schema"?}.` };
  }
  const record = value as Record<string, unknown>;
  if (record.name !== tool) return { ok: false, error: `${label}: "name" must be "${tool}", the file's name (got ${JSON.stringify(record.name)}).` };
  if (typeof record.description !== 'string' || record.description.trim() === '') {
    return { ok: false, error: `${label}: "description" is required: one sentence saying when to call the tool.` };
  }
  if (record.description.length > MAX_TOOL_DESCRIPTION_CHARS) {
    return {
      ok: false,
      error: `${label}: "description" is ${record.description.length} characters (limit: ${MAX_TOOL_DESCRIPTION_CHARS}); it is sent with every chat request, so say only when to call the tool.`,
    };
  }
  const problems = [...schemaCheck(record.input_schema, 'input_schema', label)];
  if (record.input_schema !== undefined && (record.input_schema as { type?: unknown })?.type !== 'object') {
    problems.push(`${label}: input_schema.type must be "object" (a tool takes named arguments)`);
  }
  // The chat checks each argument's type before a call (tools/toolRegistry.ts): one type per argument.
  const properties = (record.input_schema as { properties?: unknown } | undefined)?.properties;
  if (properties && typeof properties === 'object') {
    for (const [key, sub] of Object.entries(properties)) {
      if (typeof (sub as { type?: unknown } | null)?.type !== 'string') problems.push(`${label}: input_schema.properties.${key}.type must be one type such as "number"`);
    }
  }
  if (record.output_schema !== undefined) problems.push(...schemaCheck(record.output_schema, 'output_schema', label));
  if (problems.length > 0) return { ok: false, error: `${label} has an invalid schema: ${problems[0]}`, problems };
  return { ok: true, manifest: record as ToolManifest };
}

/**
 * The name a promoted tool is offered under: `<skill>__<tool>`, with characters a provider
 * refuses (the skill name's dots) made `_` and cut to 64, so two skills' tools never collide
 * unless their names already do up to that length.
 */
export function offeredToolName(skill: string, tool: string): string {
  return `${skill}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_OFFERED_NAME_LENGTH);
}
