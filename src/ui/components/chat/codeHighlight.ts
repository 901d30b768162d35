/**
 * Syntax highlighting for the chat's code blocks: highlight.js core with the languages people
 * paste most, loaded lazily by renderedMarkdown.ts (its own chunk, never in the first paint).
 * Its output is spans with `hljs-…` classes; it goes through `sanitizeHighlighted` all the same,
 * so nothing but spans and text reaches the page (docs/chat.md, "Code and math").
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { sanitizeHighlighted } from '../../markdown';

const LANGUAGES = { bash, c, cpp, csharp, css, diff, go, ini, java, javascript, json, markdown, plaintext, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Guessing the language of a long block unlabelled costs more than it gives. */
const AUTO_DETECT_LIMIT = 4000;
/** Beyond this a block stays plain: highlighting it would hold the page for too long. */
const HIGHLIGHT_LIMIT = 100_000;

function languageOf(code: Element): string | null {
  const match = /(?:^|\s)language-([\w+#.-]+)/.exec(code.getAttribute('class') ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

/** The highlighted HTML of one block, or null to leave it as it is. */
export function highlightCode(text: string, language: string | null): string | null {
  if (text.length > HIGHLIGHT_LIMIT) return null;
  try {
    if (language && hljs.getLanguage(language)) return hljs.highlight(text, { language, ignoreIllegals: true }).value;
    if (language || text.length > AUTO_DETECT_LIMIT) return null;
    const guess = hljs.highlightAuto(text);
    return guess.relevance >= 5 ? guess.value : null;
  } catch {
    return null;
  }
}

/** Sanitised Markdown HTML with each `<pre><code>` block highlighted; the rest is untouched. */
export function highlightHtml(html: string): string {
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const code of template.content.querySelectorAll('pre > code')) {
    const highlighted = highlightCode(code.textContent ?? '', languageOf(code));
    if (highlighted === null) continue;
    code.innerHTML = sanitizeHighlighted(highlighted);
  }
  return template.innerHTML;
}
