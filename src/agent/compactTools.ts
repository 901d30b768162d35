/**
 * Shorter tool schemas for small windows (docs/context-window.md, "Tool schemas"). Knack's tool
 * descriptions are written for large models and cost ~1,100 tokens in all; at 4,096 that is a
 * quarter of the window. The compact form keeps each description's first sentence and short
 * parameter notes; the minimal form (2,048 and below) keeps names, types, enums and what is
 * required, and a one-line description. The parameters a tool accepts never change, only the
 * words about them. Plain TypeScript, no DOM.
 */
import type { ToolSpec } from '../providers/provider';
import type { ToolForm } from './contextBudget';

/** The first sentence of a text, cut at `max` characters on a word. */
export function firstSentence(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/(?<!\b(?:e\.g|i\.e|etc))[.!?](\s|$)/);
  const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
  if (sentence.length <= max) return sentence;
  const cut = sentence.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

interface Limits {
  description: number;
  /** Characters a parameter's description keeps; 0 drops it. */
  parameter: number;
}

const LIMITS: Record<Exclude<ToolForm, 'full' | 'none'>, Limits> = {
  compact: { description: 160, parameter: 48 },
  minimal: { description: 110, parameter: 0 },
};

function compactSchema(schema: unknown, limits: Limits): unknown {
  if (Array.isArray(schema)) return schema.map((item) => compactSchema(item, limits));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'description' && typeof value === 'string') {
      if (limits.parameter > 0) out[key] = firstSentence(value, limits.parameter);
      continue;
    }
    if (key === 'examples' || key === 'default') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, compactSchema(sub, limits)]));
      continue;
    }
    out[key] = typeof value === 'object' ? compactSchema(value, limits) : value;
  }
  return out;
}

/** The tool specs in the given form; `full` returns them as they are, `none` offers none. */
export function toolsInForm(tools: readonly ToolSpec[], form: ToolForm): ToolSpec[] {
  if (form === 'full') return [...tools];
  if (form === 'none') return [];
  const limits = LIMITS[form];
  return tools.map((tool) => ({
    name: tool.name,
    description: firstSentence(tool.description, limits.description),
    parameters: compactSchema(tool.parameters, limits),
  }));
}
