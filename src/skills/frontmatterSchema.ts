/**
 * How frontmatter values are typed: YAML 1.2's core schema, narrowed so that a value is shown
 * the way the user wrote it (docs/frontmatter.md).
 *
 * YAML 1.1 (PyYAML, so Hermes) reads `yes`/`no`/`on`/`off` as booleans, `0755` as the octal
 * 493 and `2026-01-02` as a date; YAML 1.2's core schema already keeps those as text but still
 * turns `0o755` into 493, `0x1F` into 31, `1.0` into 1 and `1e3` into 1000. Frontmatter is
 * written by people and shown back to them (the Skills view's table, the index, skill_view), and
 * nothing in a skill needs arithmetic, so the rule is: a plain value becomes a number or a
 * boolean only when that number's or boolean's own text is exactly what was written (`12`,
 * `-3`, `1.5`, `true`, `false`); everything else stays text, character for character. `null`,
 * `~` and an empty value are still "no value". Explicit YAML 1.1 tags (`!!timestamp`,
 * `!!binary`, `!!set`…) are not resolved, so their values stay text too.
 */
import type { DocumentOptions, ParseOptions, ScalarTag, SchemaOptions } from 'yaml';

/** The tag list `customTags` receives: tag objects, or names of tags the package knows. */
type Tags = Parameters<Extract<NonNullable<SchemaOptions['customTags']>, (tags: never) => unknown>>[0];

/**
 * Integers of up to 15 digits (exactly representable) and decimals without a trailing zero,
 * no sign but `-`, no leading zero: the shapes whose JavaScript text is the written text.
 * Anything else a plain scalar matches (`0755`, `1.0`, `+1`) is never a number, so re-writing
 * the frontmatter leaves it unquoted.
 */
export const CANONICAL_NUMBER = /^-?(?:0\.[0-9]*[1-9]|[1-9][0-9]{0,14}(?:\.[0-9]*[1-9])?)$|^0$/;

const numberAsWritten: ScalarTag = {
  tag: 'tag:yaml.org,2002:float',
  default: true,
  identify: (value) => typeof value === 'number' && Number.isFinite(value),
  test: CANONICAL_NUMBER,
  // A long decimal can still round (0.1000000000000000055 → 0.1): then it stays text.
  resolve: (text) => (String(Number(text)) === text ? Number(text) : text),
};

const booleanAsWritten: ScalarTag = {
  tag: 'tag:yaml.org,2002:bool',
  default: true,
  identify: (value) => typeof value === 'boolean',
  test: /^(?:true|false)$/,
  // An explicit `!!bool yes` reaches here too; it stays text rather than becoming false.
  resolve: (text) => (text === 'true' ? true : text === 'false' ? false : text),
};

const KEPT_CORE_TAGS = new Set(['tag:yaml.org,2002:map', 'tag:yaml.org,2002:seq', 'tag:yaml.org,2002:str', 'tag:yaml.org,2002:null']);

function asWrittenTags(coreTags: Tags): Tags {
  return [...coreTags.filter((tag) => typeof tag !== 'string' && KEPT_CORE_TAGS.has(tag.tag)), booleanAsWritten, numberAsWritten];
}

/**
 * Options for `parseDocument` that apply this typing. A `%YAML 1.1` directive in the text does
 * not switch it back: the schema is given explicitly.
 */
export const FRONTMATTER_YAML_OPTIONS: Readonly<ParseOptions & DocumentOptions & SchemaOptions> = Object.freeze({
  version: '1.2',
  schema: 'core',
  customTags: asWrittenTags,
  resolveKnownTags: false,
});
