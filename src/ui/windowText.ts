/**
 * A model's window in words for Settings (docs/context-window.md, "Knowing the window"):
 * the figure and where it came from.
 */
import type { ModelWindow } from '../providers/modelWindow';

const tokensText = (tokens: number) => `${tokens.toLocaleString('en-US')} tokens`;

/** "4,096 tokens — reported by llama.cpp", "… — learned from a refusal", "… — set by you", "… — assumed: nothing reported". */
export function describeWindow(window: ModelWindow): string {
  switch (window.source) {
    case 'reported':
      return `${tokensText(window.tokens)} — reported by ${window.detail || 'the server'}`;
    case 'learned':
      return `${tokensText(window.tokens)} — learned from a refusal`;
    case 'set':
      return `${tokensText(window.tokens)} — set by you`;
    default:
      return `${tokensText(window.tokens)} — assumed: nothing reported`;
  }
}

/** The Context window field's value as a figure: empty is automatic (null); anything else must be a whole number of at least 256. */
export function parseWindowField(text: string): { value: number | null } | { error: string } {
  const trimmed = text.trim().replace(/[,_\s]/g, '');
  if (trimmed === '') return { value: null };
  if (!/^\d+$/.test(trimmed)) return { error: 'The context window is a whole number of tokens (for example 8192), or empty for automatic.' };
  const value = Number(trimmed);
  if (value < 256) return { error: 'A context window under 256 tokens cannot hold a chat; leave it empty for automatic.' };
  return { value };
}
