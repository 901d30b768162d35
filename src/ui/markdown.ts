/**
 * Markdown from models, skills and imports as HTML: marked, then DOMPurify (docs/security.md:
 * nothing unsanitised reaches `{@html}`). One sanitiser for the whole app: the chat, the
 * skill views and the gate's case answers all call `renderMarkdown`.
 *
 * The sanitiser keeps an allow-list, not a deny-list: only the elements and attributes the
 * Markdown we render produces (plus a few harmless inline tags people write by hand). There
 * is no SVG, no MathML and no element that fetches anything (img, media, frames, objects,
 * forms, style, link, meta), because a deny-list let SVG `<image>` and `<feImage>` through and
 * only the CSP stopped them loading (a tracking pixel in a reply or a learned skill would break
 * the privacy promise). Links may only be http(s), mailto or relative, and open in a new tab
 * without a referrer. tests/browser/sanitizer.spec.ts throws an XSS corpus at this function.
 */
import createDOMPurify, { type Config } from 'dompurify';
import { Marked } from 'marked';

const markdown = new Marked({ gfm: true, breaks: false, async: false });

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * TeX math stays as the model wrote it, shown as code: `$…$` inline, `$$…$$` as a block. No
 * math renderer: KaTeX's HTML needs inline `style` attributes and its own fonts, and MathML is
 * outside the allow-list (docs/chat.md, "Code and math"). Without this, Markdown would eat the
 * backslashes and underscores of the TeX. `$5 and $10` is not math: the closing `$` must not
 * follow a space nor precede a digit.
 */
markdown.use({
  extensions: [
    {
      name: 'mathBlock',
      level: 'block',
      start: (source) => source.match(/^\$\$/m)?.index,
      tokenizer(source) {
        const match = /^\$\$([\s\S]+?)\$\$[^\S\n]*(?:\n|$)/.exec(source);
        return match ? { type: 'mathBlock', raw: match[0], text: match[1]!.trim() } : undefined;
      },
      renderer: (token) => `<pre><code class="language-math">${escapeHtml(String(token.text))}</code></pre>\n`,
    },
    {
      name: 'mathInline',
      level: 'inline',
      start: (source) => source.indexOf('$'),
      tokenizer(source) {
        const match = /^\$\$([^$]+?)\$\$|^\$(?![\s$])([^$\n]+?)(?<![\s\\])\$(?!\d)/.exec(source);
        return match ? { type: 'mathInline', raw: match[0], text: (match[1] ?? match[2])! } : undefined;
      },
      renderer: (token) => `<code>${escapeHtml(String(token.text))}</code>`,
    },
  ],
});

/** Everything marked emits for GFM (minus images and task-list checkboxes) and a few inline tags. */
export const ALLOWED_TAGS: readonly string[] = Object.freeze([
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'p', 'br', 'hr', 'blockquote', 'pre', 'code',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption',
  'a', 'strong', 'b', 'em', 'i', 'del', 's', 'ins', 'u', 'mark', 'small', 'sub', 'sup', 'kbd', 'samp', 'var', 'abbr', 'q', 'cite',
  'details', 'summary', 'span', 'div',
]);

/**
 * `class` is allowed only for the `language-…` marker marked puts on code blocks (removed
 * otherwise in the hook below, so a reply cannot borrow the app's own button styles).
 */
export const ALLOWED_ATTR: readonly string[] = Object.freeze(['href', 'title', 'align', 'start', 'colspan', 'rowspan', 'open', 'class']);

/**
 * http:, https:, mailto:, or a relative URL (`/x`, `#x`, `./x`, `x/y`: no scheme before a
 * colon). DOMPurify strips whitespace and control characters before testing, and the HTML
 * parser has already decoded entities, so `jav&#x09;ascript:` meets this as `javascript:`.
 */
export const ALLOWED_URI_REGEXP = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;

const CODE_LANGUAGE_CLASS = /^language-[\w+#.-]{1,40}$/;

/**
 * The class names highlight.js puts on its spans: `hljs-<scope>` and the sub-scope markers it
 * adds beside them (`function_`, `class_`, `language_`: lowercase words ending in `_`). Only
 * these, only on spans, and only in code the highlighter produced (`sanitizeHighlighted`).
 */
const HIGHLIGHT_CLASS = /^(?:hljs-[a-z][\w-]{0,40}|[a-z]{1,20}_{1,3})$/;

const SANITIZE_CONFIG: Config = {
  ALLOWED_TAGS: [...ALLOWED_TAGS],
  ALLOWED_ATTR: [...ALLOWED_ATTR],
  ALLOWED_URI_REGEXP,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  // Only HTML: an <svg> or <math> root never starts a foreign subtree that could be re-read.
  ALLOWED_NAMESPACES: ['http://www.w3.org/1999/xhtml'],
};

/** Highlighted code is spans of text and nothing else (docs/chat.md, "Code and math"). */
const HIGHLIGHT_CONFIG: Config = {
  ALLOWED_TAGS: ['span'],
  ALLOWED_ATTR: ['class'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOWED_NAMESPACES: ['http://www.w3.org/1999/xhtml'],
};

// A private DOMPurify instance, so these hooks never change how anything else sanitises.
let purifier: ReturnType<typeof createDOMPurify> | null = null;
/** True only while `sanitizeHighlighted` runs: the hook then keeps highlight classes on spans. */
let highlighting = false;

function keptClass(node: Element): string | null {
  const value = node.getAttribute('class') ?? '';
  if (node.tagName === 'CODE' && !highlighting) return CODE_LANGUAGE_CLASS.test(value) ? value : null;
  if (node.tagName !== 'SPAN' || !highlighting) return null;
  const tokens = value.split(/\s+/).filter((token) => HIGHLIGHT_CLASS.test(token));
  return tokens.length ? tokens.join(' ') : null;
}

function getPurifier(): ReturnType<typeof createDOMPurify> {
  if (purifier) return purifier;
  purifier = createDOMPurify(window);
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node.hasAttribute('class')) {
      const keep = keptClass(node);
      if (keep === null) node.removeAttribute('class');
      else node.setAttribute('class', keep);
    }
    if (node.tagName === 'A' && node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  return purifier;
}

/** Sanitise HTML to the allow-list above (exported for the sanitiser tests). */
export function sanitizeHtml(html: string): string {
  return getPurifier().sanitize(html, SANITIZE_CONFIG);
}

export function renderMarkdown(text: string): string {
  return sanitizeHtml(markdown.parse(text) as string);
}

/**
 * Sanitises the highlighter's HTML for one code block: spans with highlight classes and text,
 * nothing else survives (the highlighter escapes the code, and this holds even if it did not).
 */
export function sanitizeHighlighted(html: string): string {
  highlighting = true;
  try {
    return getPurifier().sanitize(html, HIGHLIGHT_CONFIG);
  } finally {
    highlighting = false;
  }
}
