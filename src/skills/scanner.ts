/**
 * Static security scanner for skills (docs/scanner-patterns.md).
 *
 * A learned or imported skill is a prompt that will be obeyed later, so every write the
 * model makes and every import is scanned. The scanner looks for exfiltration, prompt
 * injection, obfuscation, persistence, supply-chain, network, destructive, execution,
 * credential, traversal, privilege and mining patterns, for invisible Unicode characters,
 * and for structural problems (too many or too large files, binaries, escaping links).
 * The verdict (dangerous / caution / safe) and the source's trust level decide, through the
 * install policy, whether a skill is allowed, blocked or needs the user's confirmation.
 *
 * The patterns, grouped into classes with one severity each, are in scannerPatterns.ts.
 * Matching is line-based, one finding per pattern per line, and case-insensitive except
 * where a pattern confirms its match case-sensitively (code in a case-sensitive language).
 * For speed (100,000 characters in ≤ 15 ms) each pattern runs once over the whole text
 * (compiled so it cannot cross a line break), patterns whose literal hint is absent from
 * the text are skipped, and after a hit the scan jumps to the next line.
 */
import {
  FINDING_MATCH_MAX_CHARS,
  MAX_FILE_COUNT,
  MAX_SINGLE_FILE_KB,
  MAX_TOTAL_SIZE_KB,
  SCANNER_VERSION,
  SCAN_IGNORE_FILES,
  TRUSTED_REPOS,
} from './constants';
import { INVISIBLE_UNICODE_ID, STAGED_SECRET_UPLOAD_ID, THREAT_PATTERNS, type Severity, type ThreatCategory } from './scannerPatterns';

export type { Severity, ThreatCategory, ThreatPattern, ScannerClass } from './scannerPatterns';
export { SCANNER_CLASSES, THREAT_PATTERNS, confineToLine } from './scannerPatterns';
export type Verdict = 'safe' | 'caution' | 'dangerous';
export type TrustLevel = 'builtin' | 'trusted' | 'community' | 'agent-created';
export type InstallDecision = 'allow' | 'block' | 'ask';

export interface Finding {
  patternId: string;
  severity: Severity;
  category: ThreatCategory;
  /** Path inside the skill, e.g. `SKILL.md` or `scripts/run.sh`. */
  file: string;
  /** 1-based line; 0 for findings about a whole file or the whole skill. */
  line: number;
  /** The matched text, cut to 120 characters. */
  match: string;
  description: string;
}

/**
 * Which hints occur in a text, found in one pass instead of one `includes` per hint (which
 * costs ~7 ms on 100,000 characters). Hints are tried longest first at every position where
 * one matches; a hint that only occurs inside a longer one is credited through `containedHints`.
 */
const HINTS_LONGEST_FIRST = [...new Set(THREAT_PATTERNS.flatMap((p) => p.hints))].sort((a, b) => b.length - a.length);
const HINT_RE = new RegExp(HINTS_LONGEST_FIRST.map((h) => h.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
const containedHints = new Map(HINTS_LONGEST_FIRST.map((h) => [h, HINTS_LONGEST_FIRST.filter((other) => h.includes(other))]));

function hintsPresent(lowerText: string): Set<string> {
  const found = new Set<string>();
  HINT_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = HINT_RE.exec(lowerText)) !== null) {
    if (!found.has(m[0])) for (const h of containedHints.get(m[0])!) found.add(h);
    HINT_RE.lastIndex = m.index + 1;
  }
  return found;
}

// =============================================================================================
// Invisible characters

const INVISIBLE_CHAR_NAMES: ReadonlyMap<number, string> = new Map([
  [0x200b, 'zero width space'],
  [0x200c, 'zero width non-joiner'],
  [0x200d, 'zero width joiner'],
  [0x2060, 'word joiner'],
  [0x2062, 'invisible times'],
  [0x2063, 'invisible separator'],
  [0x2064, 'invisible plus'],
  [0xfeff, 'zero width no-break space (BOM)'],
  [0x202a, 'left-to-right embedding'],
  [0x202b, 'right-to-left embedding'],
  [0x202c, 'pop directional formatting'],
  [0x202d, 'left-to-right override'],
  [0x202e, 'right-to-left override'],
  [0x2066, 'left-to-right isolate'],
  [0x2067, 'right-to-left isolate'],
  [0x2068, 'first strong isolate'],
  [0x2069, 'pop directional isolate'],
]);
const INVISIBLE_RE = /[\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff\u202a-\u202e\u2066-\u2069]/g;

/** A readable name for a character, or `U+XXXX` when it has none here. */
export function unicodeCharName(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return INVISIBLE_CHAR_NAMES.get(code) ?? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

// =============================================================================================
// Scanning text

/** Files the pattern scan reads (by extension), as in Hermes plus `.jsonl` for Knack evals. */
const SCANNABLE_EXTENSIONS = new Set([
  '.md', '.txt', '.py', '.sh', '.bash', '.js', '.ts', '.rb', '.yaml', '.yml', '.json', '.jsonl', '.toml',
  '.cfg', '.ini', '.conf', '.html', '.css', '.xml', '.tex', '.r', '.jl', '.pl', '.php',
]);

function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

export function isScannableFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base === 'SKILL.md' || SCANNABLE_EXTENSIONS.has(extensionOf(path));
}

function capMatch(text: string): string {
  const t = text.trim();
  return t.length > FINDING_MATCH_MAX_CHARS ? `${t.slice(0, FINDING_MATCH_MAX_CHARS - 3)}...` : t;
}

/** Start offset of every line. */
function lineStarts(text: string): Int32Array {
  let count = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  const starts = new Int32Array(count);
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts[n++] = i + 1;
  return starts;
}

/** Index of the line containing `offset` (binary search). */
function lineIndexAt(starts: Int32Array, offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Lines longer than this are scanned in overlapping pieces. A pattern with `.*` costs time in
 * proportion to the line length for every place it could start, so one 100,000-character line
 * full of hint words would take seconds; pieces keep the cost linear in the text.
 */
const MAX_SCAN_LINE_CHARS = 1000;
/** Each piece repeats this many characters of the previous one, so a match across a cut is seen. */
const SCAN_LINE_OVERLAP = 200;

/** The text with long lines cut into overlapping pieces, and each piece's original line. */
function foldLongLines(content: string, starts: Int32Array): { text: string; lineOf: Int32Array } | null {
  let long = false;
  for (let i = 0; i < starts.length && !long; i++) {
    const end = i + 1 < starts.length ? starts[i + 1] - 1 : content.length;
    long = end - starts[i] > MAX_SCAN_LINE_CHARS;
  }
  if (!long) return null;
  const pieces: string[] = [];
  const lineOf: number[] = [];
  for (let i = 0; i < starts.length; i++) {
    const end = i + 1 < starts.length ? starts[i + 1] - 1 : content.length;
    for (let at = starts[i]; ; at += MAX_SCAN_LINE_CHARS - SCAN_LINE_OVERLAP) {
      pieces.push(content.slice(at, Math.min(end, at + MAX_SCAN_LINE_CHARS)));
      lineOf.push(i);
      if (at + MAX_SCAN_LINE_CHARS >= end) break;
    }
  }
  return { text: pieces.join('\n'), lineOf: Int32Array.from(lineOf) };
}

/**
 * For a Markdown file, which lines are inside a fenced code block (``` or ~~~); null for other
 * files. Inside a fence, `[x](../../y)` is text a command will read, not a link for the reader.
 */
function fencedLines(content: string, starts: Int32Array, file: string): Uint8Array | null {
  if (extensionOf(file) !== '.md') return null;
  const fenced = new Uint8Array(starts.length);
  let inside = false;
  for (let i = 0; i < starts.length; i++) {
    const opener = /^\s*(?:```|~~~)/.test(content.slice(starts[i], starts[i] + 16));
    fenced[i] = inside || opener ? 1 : 0;
    if (opener) inside = !inside;
  }
  return fenced;
}

/** Run every pattern whose hints occur; at most one finding per pattern per (original) line. */
function scanPatterns(content: string, file: string, findings: Finding[]): void {
  const present = hintsPresent(content.toLowerCase());
  const active = THREAT_PATTERNS.filter((p) => p.hints.length === 0 || p.hints.some((hint) => present.has(hint)));
  if (active.length === 0) return;
  const starts = lineStarts(content);
  const folded = foldLongLines(content, starts);
  const text = folded ? folded.text : content;
  const textStarts = folded ? lineStarts(text) : starts;
  const originalLine = (index: number) => (folded ? folded.lineOf[index] : index);
  const lineText = (line: number) => content.slice(starts[line], line + 1 < starts.length ? starts[line + 1] - 1 : content.length);
  let fenced: Uint8Array | null | undefined;
  const markdownProse = (line: number) => {
    if (fenced === undefined) fenced = fencedLines(content, starts, file);
    return fenced !== null && fenced[line] === 0;
  };

  for (const pattern of active) {
    const re = pattern.regex;
    re.lastIndex = 0;
    let lastLine = -1;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      const index = lineIndexAt(textStarts, m.index);
      const line = originalLine(index);
      const exempt = line === lastLine || pattern.exemptLine?.(lineText(line), markdownProse(line)) === true;
      if (!exempt && pattern.confirm && !pattern.confirm.test(m[0])) {
        // Wrong case (not this language): a real match may still follow on the same line.
        re.lastIndex = m.index + 1;
        continue;
      }
      if (!exempt) {
        findings.push({
          patternId: pattern.id,
          severity: pattern.severity,
          category: pattern.category,
          file,
          line: line + 1,
          match: capMatch(m[0] || lineText(line)),
          description: pattern.description,
        });
        lastLine = line;
      }
      // One finding per pattern per line: continue from the next line (or piece).
      if (index + 1 >= textStarts.length) break;
      re.lastIndex = textStarts[index + 1];
    }
  }
}

/**
 * Scan one text file's content (Hermes `scan_file`). Returns findings in line order; at most
 * one per pattern per line and one invisible-character finding per line. A BOM at the very
 * start is reported too: the Hermes guard reads files without removing it and rates it high, and
 * Knack is never looser (docs/scanner-patterns.md, "No exceptions").
 */
export function scanText(content: string, file = 'SKILL.md'): Finding[] {
  const findings: Finding[] = [];
  let starts: Int32Array | null = null;
  scanPatterns(content, file, findings);

  INVISIBLE_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  let lastLine = -1;
  while ((m = INVISIBLE_RE.exec(content)) !== null) {
    starts ??= lineStarts(content);
    const index = lineIndexAt(starts, m.index);
    if (index === lastLine) continue;
    lastLine = index;
    const code = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    findings.push({
      patternId: INVISIBLE_UNICODE_ID,
      severity: 'high',
      category: 'injection',
      file,
      line: index + 1,
      match: `U+${code} (${unicodeCharName(m[0])})`,
      description: 'invisible character that can hide text from the reader',
    });
  }

  const staged = stagedSecretUpload(findings, file);
  if (staged) findings.push(staged);
  findings.sort((a, b) => a.line - b.line);
  return findings;
}

/** Findings that put secrets or the environment into a temp file. */
const STAGING_IDS = new Set(['tmp_staging', 'tmp_env_dump']);

/**
 * Staging secrets in a temp file is suspicious and uploading a temp file is suspicious; both
 * in one file, in that order (on one line or several), is the exfiltration itself, so it is
 * reported as critical at the upload line.
 */
function stagedSecretUpload(findings: readonly Finding[], file: string): Finding | null {
  let stagedAt = Infinity;
  for (const f of findings) if (STAGING_IDS.has(f.patternId)) stagedAt = Math.min(stagedAt, f.line);
  if (stagedAt === Infinity) return null;
  const upload = findings.find((f) => f.patternId === 'tmp_upload' && f.line >= stagedAt);
  if (!upload) return null;
  return {
    patternId: STAGED_SECRET_UPLOAD_ID,
    severity: 'critical',
    category: 'exfiltration',
    file,
    line: upload.line,
    match: upload.match,
    description: `uploads a temp file after staging secrets in one (line ${stagedAt})`,
  };
}

/** Substrings that make `skill_view` attach a warning to the content it serves. */
export const INJECTION_PHRASES: readonly string[] = [
  'ignore previous instructions',
  'ignore all previous',
  'you are now',
  'disregard your',
  'forget your instructions',
  'new instructions:',
  'system prompt:',
  '<system>',
  ']]>',
];

/** The injection phrases present in `text` (case-insensitive), in list order. */
export function findInjectionPhrases(text: string): string[] {
  const lower = text.toLowerCase();
  return INJECTION_PHRASES.filter((phrase) => lower.includes(phrase));
}

// =============================================================================================
// Ignore files (.skillignore / .clawhubignore)

interface IgnoreRule {
  regex: RegExp;
  dirOnly: boolean;
  anchored: boolean;
}

/** fnmatch-style glob to regex: `*` and `?` match any character (slashes too), `[...]` sets. */
function globToRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) out += '\\[';
      else {
        let set = glob.slice(i + 1, close);
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        out += `[${set.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else out += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

export function parseIgnoreRules(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split('\n')) {
    let line = rawLine.trim();
    if (!line || line.startsWith('#')) continue;
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.replace(/\/+$/, '');
    // As in gitignore, a slash at the start or in the middle ties the pattern to the skill root.
    const anchored = line.includes('/');
    line = line.replace(/^\/+/, '');
    if (!line) continue;
    rules.push({ regex: globToRegex(line), dirOnly, anchored });
  }
  return rules;
}

/** True when `path` (relative to the skill) is excluded by the rules. */
export function isIgnored(path: string, rules: readonly IgnoreRule[]): boolean {
  const parts = path.split('/');
  const base = parts[parts.length - 1];
  for (const rule of rules) {
    if (rule.dirOnly) {
      // A directory rule matches any parent folder (or, when anchored, a leading prefix).
      const dirs = parts.slice(0, -1);
      for (let i = 0; i < dirs.length; i++) {
        if (rule.anchored ? rule.regex.test(dirs.slice(0, i + 1).join('/')) : rule.regex.test(dirs[i])) return true;
      }
      continue;
    }
    if (rule.anchored) {
      if (rule.regex.test(path)) return true;
      for (let i = 1; i < parts.length; i++) if (rule.regex.test(parts.slice(0, i).join('/'))) return true;
      continue;
    }
    if (rule.regex.test(path) || rule.regex.test(base) || parts.some((part) => rule.regex.test(part))) return true;
  }
  return false;
}

// =============================================================================================
// Whole-skill scan

export interface SkillFileInput {
  /** Path relative to the skill folder, `/`-separated. */
  path: string;
  /** Text or bytes. Bytes that are not UTF-8 are skipped by the pattern scan. */
  content: string | Uint8Array;
  /** For importers that can see links (zip entries): the link target, relative to the file. */
  symlinkTarget?: string;
  /** For importers that can see modes: the executable bit. */
  executable?: boolean;
}

export interface ScanResult {
  skillName: string;
  source: string;
  trustLevel: TrustLevel;
  verdict: Verdict;
  findings: Finding[];
  /** Files the pattern scan read. */
  scannedFiles: string[];
  scannerVersion: string;
  summary: string;
}

const BINARY_EXTENSIONS = new Set(['.exe', '.dll', '.so', '.dylib', '.bin', '.dat', '.com', '.msi', '.dmg', '.app', '.deb', '.rpm']);
const SCRIPT_EXTENSIONS = new Set(['.sh', '.bash', '.py', '.rb', '.pl']);

function byteSize(content: string | Uint8Array): number {
  if (typeof content !== 'string') return content.byteLength;
  let bytes = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 2 : 3;
  }
  return bytes;
}

/** Lexically resolve `target` relative to the folder of `from`; null when it leaves the skill. */
function resolveInside(from: string, target: string): string | null {
  if (target.startsWith('/') || target.includes('\\') || /^[a-z]:/i.test(target)) return null;
  const stack = from.split('/').slice(0, -1);
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (stack.length === 0) return null;
      stack.pop();
    } else stack.push(part);
  }
  return stack.join('/');
}

function structuralFinding(patternId: string, severity: Severity, file: string, match: string, description: string, category: ThreatCategory = 'structural'): Finding {
  return { patternId, severity, category, file, line: 0, match: capMatch(match), description };
}

/** Structural checks (Hermes `check_structure`), adapted to files that come from a zip or the store. */
export function checkStructure(files: readonly SkillFileInput[]): Finding[] {
  const findings: Finding[] = [];
  const paths = new Set(files.map((f) => f.path));
  let total = 0;
  for (const file of files) {
    const size = byteSize(file.content);
    total += size;
    const ext = extensionOf(file.path);
    if (file.path.startsWith('/') || file.path.split(/[\\/]/).includes('..') || /^[a-z]:/i.test(file.path)) {
      findings.push(structuralFinding('path_escape', 'critical', file.path, file.path, 'file path leaves the skill folder', 'traversal'));
    }
    if (file.symlinkTarget !== undefined) {
      const resolved = resolveInside(file.path, file.symlinkTarget);
      if (resolved === null) {
        findings.push(structuralFinding('symlink_escape', 'critical', file.path, `${file.path} -> ${file.symlinkTarget}`, 'link points outside the skill folder', 'traversal'));
      } else if (!paths.has(resolved) && ![...paths].some((p) => p.startsWith(`${resolved}/`))) {
        findings.push(structuralFinding('broken_symlink', 'medium', file.path, `${file.path} -> ${file.symlinkTarget}`, 'link points to nothing'));
      }
    }
    if (size > MAX_SINGLE_FILE_KB * 1024) {
      findings.push(structuralFinding('oversized_file', 'medium', file.path, `${Math.round(size / 1024)} KB`, `file larger than ${MAX_SINGLE_FILE_KB} KB`));
    }
    if (BINARY_EXTENSIONS.has(ext)) {
      findings.push(structuralFinding('binary_file', 'critical', file.path, file.path, 'executable binary inside a skill'));
    }
    if (file.executable && !SCRIPT_EXTENSIONS.has(ext)) {
      findings.push(structuralFinding('unexpected_executable', 'medium', file.path, file.path, 'executable bit on a file that is not a script'));
    }
  }
  if (files.length > MAX_FILE_COUNT) {
    findings.push(structuralFinding('too_many_files', 'medium', '', `${files.length} files`, `more than ${MAX_FILE_COUNT} files`));
  }
  if (total > MAX_TOTAL_SIZE_KB * 1024) {
    findings.push(structuralFinding('oversized_skill', 'high', '', `${Math.round(total / 1024)} KB`, `skill larger than ${MAX_TOTAL_SIZE_KB} KB in total`));
  }
  return findings;
}

/** critical → dangerous; else high → caution; else safe. */
export function determineVerdict(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === 'critical')) return 'dangerous';
  if (findings.some((f) => f.severity === 'high')) return 'caution';
  return 'safe';
}

const SKILLS_SH_PREFIXES = ['skills-sh/', 'skills.sh/', 'skils-sh/', 'skils.sh/'];

/** Trust level of a source string (hub id, repo path, `official`, `agent-created`). */
export function resolveTrustLevel(source: string): TrustLevel {
  let s = source.trim();
  for (const prefix of SKILLS_SH_PREFIXES) {
    if (s.toLowerCase().startsWith(prefix)) {
      s = s.slice(prefix.length);
      break;
    }
  }
  if (s === 'agent-created') return 'agent-created';
  if (s === 'official') return 'builtin';
  const lower = s.toLowerCase();
  for (const repo of TRUSTED_REPOS) {
    const r = repo.toLowerCase();
    if (lower === r || lower.startsWith(`${r}/`)) return 'trusted';
  }
  return 'community';
}

const decodeStrict = (bytes: Uint8Array): string | null => {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
};

const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/**
 * Scan a whole skill: ignore files, structure, then every scannable text file.
 * `source` decides the trust level (`agent-created` for model writes in Knack).
 */
export function scanSkill(input: { name: string; source: string; files: readonly SkillFileInput[] }): ScanResult {
  const rules: IgnoreRule[] = [];
  for (const file of input.files) {
    if (SCAN_IGNORE_FILES.includes(file.path) && typeof file.content === 'string') rules.push(...parseIgnoreRules(file.content));
    else if (SCAN_IGNORE_FILES.includes(file.path)) {
      const text = decodeStrict(file.content as Uint8Array);
      if (text !== null) rules.push(...parseIgnoreRules(text));
    }
  }
  const considered = input.files.filter(
    (file) => !SCAN_IGNORE_FILES.includes(file.path) && (file.path === 'SKILL.md' || !isIgnored(file.path, rules)),
  );
  const findings = checkStructure(considered);
  const scannedFiles: string[] = [];
  for (const file of considered) {
    if (!isScannableFile(file.path) || file.symlinkTarget !== undefined) continue;
    const text = typeof file.content === 'string' ? file.content : decodeStrict(file.content);
    if (text === null) continue;
    scannedFiles.push(file.path);
    findings.push(...scanText(text, file.path));
  }
  findings.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  const verdict = determineVerdict(findings);
  const counts = (['critical', 'high', 'medium', 'low'] as const)
    .map((s) => [s, findings.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  return {
    skillName: input.name,
    source: input.source,
    trustLevel: resolveTrustLevel(input.source),
    verdict,
    findings,
    scannedFiles,
    scannerVersion: SCANNER_VERSION,
    summary: counts.length > 0 ? `${verdict}: ${counts.join(', ')}` : 'safe: no findings',
  };
}

// =============================================================================================
// Install policy

/** allow / block / ask per trust level, for safe / caution / dangerous verdicts. */
export const INSTALL_POLICY: Readonly<Record<TrustLevel, Readonly<Record<Verdict, InstallDecision>>>> = {
  builtin: { safe: 'allow', caution: 'allow', dangerous: 'allow' },
  trusted: { safe: 'allow', caution: 'allow', dangerous: 'block' },
  community: { safe: 'allow', caution: 'block', dangerous: 'block' },
  'agent-created': { safe: 'allow', caution: 'allow', dangerous: 'ask' },
};

export interface InstallVerdict {
  decision: InstallDecision;
  /** Hermes' tri-state: true = install, false = refuse, null = ask the user. */
  allowed: boolean | null;
  reason: string;
}

/**
 * Decide whether a scanned skill may be installed. `force` (the user insisting) overrides
 * every block except a dangerous verdict from a community or trusted source. An unknown trust
 * level is treated as community and an unknown verdict as dangerous.
 */
export function shouldAllowInstall(result: Pick<ScanResult, 'trustLevel' | 'verdict' | 'findings'>, force = false): InstallVerdict {
  const trust: TrustLevel = result.trustLevel in INSTALL_POLICY ? result.trustLevel : 'community';
  const verdict: Verdict = result.verdict in INSTALL_POLICY.community ? result.verdict : 'dangerous';
  const decision = INSTALL_POLICY[trust][verdict];
  const context = `${trust} source, ${verdict} verdict`;
  if (decision === 'allow') return { decision, allowed: true, reason: `Allowed (${context})` };
  if (force) {
    if (verdict === 'dangerous' && (trust === 'community' || trust === 'trusted')) {
      return {
        decision: 'block',
        allowed: false,
        reason: `Blocked (${context}, ${result.findings.length} findings): force install does not override a dangerous verdict`,
      };
    }
    return { decision: 'allow', allowed: true, reason: `Force-installed despite the ${verdict} verdict (${trust} source)` };
  }
  if (decision === 'ask') {
    return { decision, allowed: null, reason: `Requires confirmation (${context}, ${result.findings.length} findings)` };
  }
  return { decision, allowed: false, reason: `Blocked (${context}, ${result.findings.length} findings). Use force install to override.` };
}

/** Plain-text report for the user and for the model when a write is refused. */
export function formatScanReport(result: ScanResult, install: InstallVerdict = shouldAllowInstall(result)): string {
  const lines = [`Scan: ${result.skillName} (${result.source}/${result.trustLevel})  Verdict: ${result.verdict.toUpperCase()}`];
  for (const f of result.findings) {
    const where = f.line > 0 ? `${f.file}:${f.line}` : f.file || '(skill)';
    lines.push(`  ${f.severity.toUpperCase().padEnd(8)} ${f.category.padEnd(20)} ${where.padEnd(24)} "${f.match}"`);
  }
  const label = install.decision === 'allow' ? 'ALLOWED' : install.decision === 'ask' ? 'NEEDS CONFIRMATION' : 'BLOCKED';
  lines.push(`Decision: ${label} — ${install.reason}`);
  return lines.join('\n');
}

// =============================================================================================
// Content hashes

function toHex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Digest over (path, NUL, bytes) of every file in sorted path order. `contentHash` is the
 * short form (`sha256:` + 16 hex chars) used to cache scans; `fullContentHash` the whole digest.
 */
export async function contentHash(files: readonly Pick<SkillFileInput, 'path' | 'content'>[]): Promise<{ contentHash: string; fullContentHash: string }> {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    chunks.push(encoder.encode(file.path), new Uint8Array([0]));
    chunks.push(typeof file.content === 'string' ? encoder.encode(file.content) : file.content);
  }
  const total = chunks.reduce((n, c) => n + c.byteLength, 0);
  const all = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.byteLength;
  }
  const hex = toHex(await crypto.subtle.digest('SHA-256', all));
  return { contentHash: `sha256:${hex.slice(0, 16)}`, fullContentHash: `sha256:${hex}` };
}
