/**
 * Types and shared regex fragments of the skill scanner's pattern classes
 * (docs/scanner-patterns.md). The classes themselves are in scannerClassesText.ts (what a
 * skill says: exfiltration, injection, obfuscation) and scannerClassesSystem.ts (what a skill
 * does to the machine); scannerPatterns.ts compiles them.
 */

export type Severity = 'critical' | 'high' | 'medium' | 'low';
export type ThreatCategory =
  | 'exfiltration'
  | 'injection'
  | 'obfuscation'
  | 'persistence'
  | 'supply_chain'
  | 'network'
  | 'destructive'
  | 'execution'
  | 'credential_exposure'
  | 'traversal'
  | 'privilege_escalation'
  | 'mining'
  | 'structural';

export interface ThreatPattern {
  id: string;
  /** The class the pattern belongs to (`SCANNER_CLASSES`); its severity is the class's. */
  className: string;
  category: ThreatCategory;
  severity: Severity;
  description: string;
  /** Lowercase literals; the pattern can only match when the text contains one of them. */
  hints: readonly string[];
  /** Case-insensitive, global, multiline; compiled so that no match spans a line break. */
  regex: RegExp;
  /** Case-sensitive check on the matched text, for patterns on case-sensitive languages. */
  confirm?: RegExp;
  /**
   * True when a matching line is nevertheless harmless. `markdownProse` says whether the line is
   * prose of a Markdown file (not inside a fenced code block), where a link is only for the reader.
   */
  exemptLine?: (line: string, markdownProse: boolean) => boolean;
}

export interface ScannerClass {
  id: string;
  category: ThreatCategory;
  severity: Severity;
  /** What the class catches, in a few words. */
  summary: string;
  /** Text that must trigger the class. */
  example: string;
  /** Look-alike text a legitimate skill could contain, which must not trigger anything. */
  benign: string;
  /** Pattern ids in this class (a few are checks outside the regex table, see scanner.ts). */
  patternIds: readonly string[];
}

/** Pattern ids produced by checks in scanner.ts rather than by a regex of this table. */
export const INVISIBLE_UNICODE_ID = 'invisible_unicode';
export const STAGED_SECRET_UPLOAD_ID = 'staged_secret_upload';

export interface PatternOptions {
  confirm?: RegExp;
  /** Stay quiet when every URL on the line is a loopback address (a local dev server). */
  loopbackExempt?: boolean;
  /** Stay quiet when the match only occurs inside Markdown link targets (`](../x.md)`) of Markdown prose. */
  linkTargetExempt?: boolean;
}
export type PatternRow = [id: string, hints: string[], regex: RegExp, description: string, options?: PatternOptions];

export interface ClassSpec extends Omit<ScannerClass, 'patternIds'> {
  patterns: PatternRow[];
  /** Ids of checks in scanner.ts that report under this class. */
  extraIds?: string[];
}

// =============================================================================================
// Shared fragments

/** Secret-looking variable names, used by several exfiltration patterns. */
export const SECRET_NAME = /\w*(?:key|token|secret|passw(?:or)?d|credential|api)\w*/.source;
export const QUOTED_SECRET_NAME = /['"][^'"]*(?:key|token|secret|passw(?:or)?d|credential)[^'"]*['"]/.source;
/**
 * Filler words between key words ("ignore *all of your* previous …"). Unbounded (lazy) so a
 * padded sentence is caught as surely as a short one: Knack must never miss a line the Hermes
 * guard flags (docs/scanner-patterns.md, "Never looser than Hermes"). Lines are at most 1,000
 * characters when scanned (scanner.ts), which bounds the cost.
 */
export const W = /(?:\w+\s+)*?/.source;
/**
 * A shell or interpreter that runs what it reads on standard input: its name, then only
 * flags, `-`, `/dev/stdin` and redirections, up to the end of the command. Flags with `m`,
 * `c` or `e` (and `--eval`, `--command`, `--module`) take the program from elsewhere, and so
 * does a script file: `| python3 -m json.tool` and `| node script.js` read the piped text as
 * data, so they are not execution.
 */
export const RUNS_INPUT = /(?:sudo\s+(?:-\S+\s+)*)?(?:\S*\/)?(?:env\s+)?(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node|php|pwsh|powershell|iex|source)(?:\s+(?:--(?!eval\b|command\b|module\b)[\w-]*|-(?![a-z]*[mce])[a-z]*|\/dev\/stdin|[0-9]*>>?&?\S*))*\s*(?=$|[|;&)'"`])/.source;
/**
 * A pipe into a name that starts like a shell or interpreter, matched as the Hermes guard
 * matches it, without looking at what follows: `| python3 -m json.tool` and `| sha256sum`
 * count too. It is used where the Hermes guard rates such a pipe critical (after `echo`,
 * `curl` and `wget`), so Knack is never looser there; RUNS_INPUT is the precise test for the
 * pipelines the Hermes guard does not rate.
 */
export const PIPED_INTERPRETER = /\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:\S*\/)?(?:env\s+)?(?:(?:ba|z|da|k|fi)?sh|python|perl|ruby|node|php|pwsh|powershell|iex|source)/.source;
/** Commands that turn encoded or compressed data back into text. */
export const DECODER = /(?:\bbase(?:64|32)\s+(?:-\w*[dD]\w*|--decode)|\bxxd\s+(?:-\w+\s+)*-r|\bopenssl\s+(?:enc\s+|base64\s+)[^\n|]*-d\b|\buudecode\b|\bgunzip\b|\bzcat\b|\b(?:gzip|bzip2|xz)\s+-d|\btr\s+['"]?(?:a-z|A-Z|n-z|N-Z))/.source;
/** Where a script drops files it means to pick up again: temp folders. */
export const TEMP_DIR = /(?:\/tmp\/|\/var\/tmp\/|\/dev\/shm\/|\$\{?TMPDIR\}?\/?|\$\(mktemp)/.source;
/** The home folder, spelt the ways a shell line writes it. */
export const HOME_DIR = /["']?(?:~|\$HOME|\$\{HOME\}|\/home\/[\w.-]+|\/Users\/[\w.-]+|\/root)["']?/.source;
/** A reference to a secret-named identifier used as a value (not a quoted field name). */
export const SECRET_VALUE = /(?:\$\{?|\{\s*|\+\s*|[:=,]\s*)[\w.]*(?:api_?key|apikey|token|secret|passw(?:or)?d|credential)\w*\b(?!\s*[:=(])/.source;
/** HTTP client calls in code (curl lines interpolate shell variables: env_exfil_curl covers them). */
export const HTTP_CLIENT = /(?:\b(?:requests|httpx|axios|aiohttp|urllib3|session|client|got|ky|superagent|needle)\s*\.\s*(?:get|post|put|patch|delete|request|head)\s*\(|\bfetch\s*\(|\bhttp\.request\s*\(|\bInvoke-(?:RestMethod|WebRequest)\b)/.source;

/** The loopback hosts the Hermes guard also excuses; `0.0.0.0` is every interface, not loopback. */
const LOOPBACK_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d+)?$/i;
const URL_HOST = /\bhttps?:\/\/([^/\s"'`)?#]+)/gi;

/** True when the line names at least one URL and every URL on it is a loopback address. */
export function onlyLoopbackUrls(line: string): boolean {
  let seen = false;
  for (const m of line.matchAll(URL_HOST)) {
    seen = true;
    if (!LOOPBACK_HOST.test(m[1])) return false;
  }
  return seen;
}

/** The line with Markdown link targets (`](…)`) and reference definitions (`[x]: …`) removed. */
export function withoutLinkTargets(line: string): string {
  return line.replace(/\]\([^)\s]*\)/g, '](x)').replace(/^\s*\[[^\]]+\]:\s*\S+/, '');
}
