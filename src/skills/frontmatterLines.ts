/**
 * The last-resort reader for frontmatter that is not valid YAML (docs/frontmatter.md): one
 * top-level `key: value` per line, the way people write it by hand. Used only to *show* a skill
 * (catalogue, index, skill_view, the Skills view) whose YAML breaks, e.g. on
 * `description: Use when: deploying`; writes are still validated strictly.
 *
 * What it reads: unindented `key: value` lines, split at the first colon; values are text,
 * exactly as written except that matching outer quotes and a trailing ` # comment` on an
 * unquoted value are removed; a `|` or `>` value takes the indented lines below it as a block.
 * What it skips: comments, blank lines, indented lines (nested maps and lists cannot be read
 * reliably from broken YAML) and keys with no value. A repeated key keeps its last value.
 */

const KEY_VALUE = /^([^\s#:'"-][^:]*?|-[^\s:][^:]*?)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/;
const BLOCK_HEADER = /^([|>])[-+]?[1-9]?(?:[ \t]+#.*)?$/;

function unquote(value: string): string {
  if (value.length >= 2) {
    const first = value[0];
    if ((first === '"' || first === "'") && value[value.length - 1] === first) return value.slice(1, -1);
  }
  // In YAML a comment starts at a `#` that follows a space; a `#` inside a word (C#) is text.
  const comment = value.search(/[ \t]#/);
  return comment === -1 ? value : value.slice(0, comment).trimEnd();
}

/** The indented lines after `start`, dedented; `|` keeps line breaks, `>` folds them into spaces. */
function readBlock(lines: string[], start: number, style: string): { text: string; next: number } {
  const block: string[] = [];
  let indent = -1;
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') {
      block.push('');
      continue;
    }
    const lead = /^[ \t]*/.exec(line)![0].length;
    if (lead === 0) break;
    if (indent === -1) indent = lead;
    block.push(line.slice(Math.min(indent, lead)));
  }
  while (block.length > 0 && block[block.length - 1] === '') block.pop();
  const text = style === '|' ? block.join('\n') : block.join('\n').replace(/([^\n])\n(?=[^\n])/g, '$1 ');
  return { text, next: i };
}

/** Top-level `key: value` pairs of frontmatter text that YAML could not parse. Never throws. */
export function readFrontmatterLines(raw: string): Record<string, string> {
  const values = new Map<string, string>();
  const lines = raw.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  let i = 0;
  while (i < lines.length) {
    const match = KEY_VALUE.exec(lines[i]);
    i++;
    if (!match) continue;
    const key = match[1];
    const value = match[2] ?? '';
    const block = BLOCK_HEADER.exec(value);
    if (block) {
      const read = readBlock(lines, i, block[1]);
      i = read.next;
      if (read.text !== '') values.set(key, read.text);
      continue;
    }
    const text = unquote(value);
    if (text !== '') values.set(key, text);
  }
  // Object.fromEntries defines own properties, so a `__proto__` key stays plain data.
  return Object.fromEntries(values);
}
