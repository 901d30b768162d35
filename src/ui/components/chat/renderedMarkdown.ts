/**
 * The chat's rendered Markdown, computed once per text: a finished message's sanitised HTML
 * (and, once the highlighter has run, its highlighted HTML) is kept here, so re-rendering the
 * list, switching views or a new turn never parses or sanitises an earlier message again
 * (docs/chat.md, "Rendering"). Keyed by the text itself: the HTML depends on nothing else, and
 * a line's id changes when its write lands.
 */
import { renderMarkdown } from '../../markdown';

export interface RenderedMarkdown {
  html: string;
  /** The code blocks are highlighted (or there are none): nothing more will change. */
  settled: boolean;
}

/** Enough for several long conversations; the oldest entry goes first. */
const LIMIT = 2000;
const cache = new Map<string, RenderedMarkdown>();

export function hasCodeBlock(html: string): boolean {
  return html.includes('<pre><code');
}

/** The finished text's HTML, from the cache when it was rendered before. */
export function renderedMarkdown(text: string): RenderedMarkdown {
  const hit = cache.get(text);
  if (hit) {
    // Refresh its place, so a message still on screen is not the one evicted.
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const html = renderMarkdown(text);
  const entry = { html, settled: !hasCodeBlock(html) };
  cache.set(text, entry);
  if (cache.size > LIMIT) cache.delete(cache.keys().next().value!);
  return entry;
}

/**
 * The text's HTML with its code blocks highlighted. The highlighter (highlight.js and its
 * languages) is its own chunk, loaded the first time a reply has a fenced code block.
 */
export async function highlightedMarkdown(text: string, entry: RenderedMarkdown): Promise<RenderedMarkdown> {
  if (entry.settled) return entry;
  const { highlightHtml } = await import('./codeHighlight');
  const settled = { html: highlightHtml(entry.html), settled: true };
  if (cache.has(text)) cache.set(text, settled);
  return settled;
}
