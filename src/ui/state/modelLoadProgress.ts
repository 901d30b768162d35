/**
 * web-llm's load reports as our one progress shape (docs/architecture.md, "Long work: progress and cancel"):
 * web-llm gives a fraction and a sentence; the sentence carries the counts a person wants
 * ("Fetching param cache[3/20]: 120MB fetched. 15% completed, …"). This reads the shard or
 * shader counts and the megabytes out of it, so the shared progress bar shows "3 of 20 shards"
 * and "120 MB". A sentence it does not know keeps its text as the phase and the fraction as a
 * percentage. Pure (no DOM, no Svelte). It sits with the UI state, not in providers/webllm:
 * providers import nothing of ours (docs/architecture.md, "The layers"), and Progress is storage's.
 */
import type { Progress } from '../../storage/progress';

/** What web-llm's `initProgressCallback` hands over (the fields we use). */
export interface WebLlmLoadReport {
  progress: number;
  text: string;
}

/** A model load's progress for the bar, with the unit its counts are in. */
export interface ModelLoadProgress {
  progress: Progress;
  /** "shards", "shader modules" or "%"; empty while the total is not known. */
  unit: string;
}

const STAGES: { pattern: RegExp; phase: string; unit: string }[] = [
  { pattern: /^Fetching param cache\[(\d+)\/(\d+)\]/, phase: 'Downloading the model', unit: 'shards' },
  { pattern: /^Loading model from cache\[(\d+)\/(\d+)\]/, phase: 'Loading the model from the cache', unit: 'shards' },
  { pattern: /^Loading GPU shader modules\[(\d+)\/(\d+)\]/, phase: 'Preparing GPU shaders', unit: 'shader modules' },
];

function megabytesOf(text: string): string | undefined {
  const match = /(\d+)MB (fetched|loaded)/.exec(text);
  return match ? `${Number(match[1]).toLocaleString('en')} MB ${match[2]}` : undefined;
}

/** Reads one web-llm report into done/total counts, the phase in our words and the megabytes. */
export function parseWebLlmProgress(report: WebLlmLoadReport): ModelLoadProgress {
  const text = report.text.trim();
  for (const stage of STAGES) {
    const match = stage.pattern.exec(text);
    if (!match) continue;
    const done = Number(match[1]);
    const total = Number(match[2]);
    const megabytes = megabytesOf(text);
    return { progress: { phase: stage.phase, done: Math.min(done, total), total, ...(megabytes ? { item: megabytes } : {}) }, unit: stage.unit };
  }
  if (/^Start to fetch params/.test(text)) return { progress: { phase: 'Downloading the model', done: 0, total: 0 }, unit: '' };
  const fraction = Number.isFinite(report.progress) ? Math.min(Math.max(report.progress, 0), 1) : 0;
  const phase = text || 'Loading the model';
  if (fraction > 0) return { progress: { phase, done: Math.round(fraction * 100), total: 100 }, unit: '%' };
  return { progress: { phase, done: 0, total: 0 }, unit: '' };
}
