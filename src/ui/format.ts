/** Small display helpers shared by views. */
import type { ContextUsage } from '../agent/contextBudget';
import type { ModelWindow } from '../providers/modelWindow';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1536 → "1.5 KB"; decimal-free below 10 of a unit is too coarse, above it too noisy. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return 'unknown';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

/** Share of quota in use, as a whole percent ("< 1%" for tiny non-zero usage). */
export function formatShare(usage: number, quota: number): string {
  if (!(quota > 0) || usage < 0) return 'unknown';
  const percent = (usage / quota) * 100;
  if (usage > 0 && percent < 1) return '< 1%';
  return `${Math.round(percent)}%`;
}

/**
 * Keys for a keyed list of texts that may repeat (memory entries): the text with how many times it
 * came before, so each row keeps its own state when an earlier row goes, and a repeated text never
 * collides with itself (Svelte refuses duplicate keys).
 */
export function occurrenceKeys(texts: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return texts.map((text) => {
    const count = seen.get(text) ?? 0;
    seen.set(text, count + 1);
    return `${count}:${text}`;
  });
}

const tokensText = (tokens: number) => tokens.toLocaleString('en-US');

/** "1,234 / 4,096 tokens": the context meter's figure. */
export function contextMeterText(usage: ContextUsage): string {
  return `${tokensText(usage.used)} / ${tokensText(usage.window.tokens)} tokens`;
}

/** The meter's rows: what fills the window, part by part, then what is left for the reply. */
export function contextPartRows(usage: ContextUsage): { label: string; tokens: string }[] {
  const { parts } = usage;
  return [
    { label: 'Instructions', tokens: tokensText(parts.instructions) },
    { label: 'Tools', tokens: tokensText(parts.tools) },
    { label: 'Skills', tokens: tokensText(parts.skills) },
    { label: 'Memory', tokens: tokensText(parts.memory) },
    { label: 'Summary', tokens: tokensText(parts.summary) },
    { label: 'Conversation', tokens: tokensText(parts.conversation) },
    { label: 'Free for the reply', tokens: tokensText(Math.max(0, usage.window.tokens - usage.used)) },
  ];
}

/** Where a window figure came from, in words (Settings and the meter). */
export function windowSourceText(window: ModelWindow): string {
  const figure = `${tokensText(window.tokens)} tokens`;
  switch (window.source) {
    case 'reported':
      return `${figure}, reported by ${window.detail ?? 'the server'}.`;
    case 'learned':
      return `${figure}, learned from the server’s refusal of a longer request.`;
    case 'set':
      return `${figure}, set by you in Settings.`;
    case 'default':
      return `${figure}, assumed: nothing reported it yet.`;
  }
}
