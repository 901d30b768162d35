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

// A private DOMPurify instance, so these hooks never change how anything else sanitises.
let purifier: ReturnType<typeof createDOMPurify> | null = null;

function getPurifier(): ReturnType<typeof createDOMPurify> {
  if (purifier) return purifier;
  purifier = createDOMPurify(window);
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node.hasAttribute('class')) {
      const keep = node.tagName === 'CODE' && CODE_LANGUAGE_CLASS.test(node.getAttribute('class') ?? '');
      if (!keep) node.removeAttribute('class');
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
