/**
 * Markdown from models, skills and imports as HTML: marked, then DOMPurify (SPEC §16:
 * nothing unsanitised reaches `{@html}`). The output is also kept from touching the network:
 * images and anything else with a remote URL never load (a tracking pixel in a reply or a
 * learned skill would break the privacy promise), and links open in a new tab without a
 * referrer. One sanitiser for the whole app: the chat and the skill views use this.
 */
import createDOMPurify from 'dompurify';
import { Marked } from 'marked';

const markdown = new Marked({ gfm: true, breaks: false, async: false });

// A private DOMPurify instance, so these hooks never change how anything else sanitises.
let purifier: ReturnType<typeof createDOMPurify> | null = null;

function getPurifier(): ReturnType<typeof createDOMPurify> {
  if (purifier) return purifier;
  purifier = createDOMPurify(window);
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A' && node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  return purifier;
}

export function renderMarkdown(text: string): string {
  const html = markdown.parse(text) as string;
  return getPurifier().sanitize(html, {
    // Media and forms would load remote content or look like part of the app.
    FORBID_TAGS: ['img', 'picture', 'source', 'video', 'audio', 'iframe', 'object', 'embed', 'form', 'input', 'button', 'style', 'link', 'meta'],
    FORBID_ATTR: ['style', 'srcset', 'background', 'poster'],
    ALLOW_DATA_ATTR: false,
  });
}
