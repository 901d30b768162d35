/**
 * The skill scanner's pattern table, compiled from its classes (docs/scanner-patterns.md).
 *
 * A class is one kind of danger with one severity, an example that must trigger it and a
 * benign twin (text a real skill could contain that looks alike) that must not. The classes
 * are exported as data (`SCANNER_CLASSES`) so the tests check every class both ways and check
 * that the document lists every class; the scanner (scanner.ts) runs `THREAT_PATTERNS`.
 *
 * The regular expressions are Knack's own. Matching is case-insensitive unless a pattern has
 * a `confirm` regex, which the matched text must also satisfy case-sensitively: that is how a
 * pattern stays exact where the language is (Ruby's `ENV[` is not JavaScript's `env[`).
 */
import { SYSTEM_CLASS_SPECS } from './scannerClassesSystem';
import { TEXT_CLASS_SPECS } from './scannerClassesText';
import { onlyLoopbackUrls, withoutLinkTargets, type ClassSpec, type PatternOptions, type ScannerClass, type ThreatPattern } from './scannerFragments';

export * from './scannerFragments';

/**
 * Rewrite a regex source so it stays within one line: `\s` outside a class becomes "blank
 * other than a line break", and every negated class also excludes `\n`. Without this, a
 * `[^"]*` could run across the whole file and turn one scan into quadratic work.
 */
export function confineToLine(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      out += !inClass && next === 's' ? '[^\\S\\n]' : c + next;
      i++;
      continue;
    }
    if (!inClass && c === '[') {
      inClass = true;
      if (source[i + 1] === '^') {
        out += '[^\\n';
        i++;
      } else out += c;
      continue;
    }
    if (inClass && c === ']') inClass = false;
    out += c;
  }
  return out;
}

const CLASS_SPECS: readonly ClassSpec[] = [...TEXT_CLASS_SPECS, ...SYSTEM_CLASS_SPECS];

function exemption(regex: RegExp, options: PatternOptions | undefined): ThreatPattern['exemptLine'] {
  if (!options?.loopbackExempt && !options?.linkTargetExempt) return undefined;
  const single = new RegExp(regex.source, 'i');
  return (line, markdownProse) =>
    (options.loopbackExempt === true && onlyLoopbackUrls(line)) || (options.linkTargetExempt === true && markdownProse && !single.test(withoutLinkTargets(line)));
}

export const THREAT_PATTERNS: readonly ThreatPattern[] = CLASS_SPECS.flatMap((spec) =>
  spec.patterns.map(([id, hints, regex, description, options]): ThreatPattern => {
    const compiled = new RegExp(confineToLine(regex.source), 'gim');
    return {
      id,
      className: spec.id,
      category: spec.category,
      severity: spec.severity,
      hints,
      description,
      regex: compiled,
      ...(options?.confirm ? { confirm: options.confirm } : {}),
      ...(exemption(compiled, options) ? { exemptLine: exemption(compiled, options) } : {}),
    };
  }),
);

/** Every class with its example, benign twin and pattern ids (docs/scanner-patterns.md). */
export const SCANNER_CLASSES: readonly ScannerClass[] = CLASS_SPECS.map(({ patterns, extraIds, ...rest }) => ({
  ...rest,
  patternIds: [...patterns.map(([id]) => id), ...(extraIds ?? [])],
}));
