/**
 * Which model a verdict belongs to (docs/gate.md, "Per-model verdicts"): the place the model
 * runs and its id. A verdict measured on one model says nothing about another, so the index
 * label, the usage record's per-model verdicts and the Verification region all key by this.
 */
import type { GateModelUsed } from './types';
import { providerLocality, replayProviderId } from './cacheKey';

/** What the key is made of: the provider as a verdict records it (origin or 'webgpu') and the model id. */
export interface ModelRef {
  provider: string;
  id: string;
}

/**
 * `provider␠model`. The storage migration that backfilled keys (storage/db.ts, version 3)
 * writes the same text; a unit test holds the two together.
 */
export function modelKeyOf(model: ModelRef): string {
  return `${model.provider} ${model.id}`;
}

/** The key of the model a finished run used. */
export function verdictModelKey(record: { model: Pick<GateModelUsed, 'provider' | 'id'> }): string {
  return modelKeyOf(record.model);
}

/** A provider's settings as a model reference, recorded the way gate runs record theirs. */
export function modelRefOf(settings: { kind: 'openai-compatible' | 'webgpu'; baseUrl: string; model: string }): ModelRef {
  const providerId = replayProviderId(settings);
  return { provider: providerLocality(providerId) === 'webgpu' ? 'webgpu' : providerId, id: settings.model };
}

/** The key of the model a chat (or the gate) talks to. */
export function providerModelKey(settings: { kind: 'openai-compatible' | 'webgpu'; baseUrl: string; model: string }): string {
  return modelKeyOf(modelRefOf(settings));
}

/**
 * The verdict that counts for each model a skill was measured on: the newest applied run of
 * each model key, newest first. `history` is newest first (VerdictStore.history).
 */
export function latestPerModel<R extends { status: string; model: Pick<GateModelUsed, 'provider' | 'id'>; modelKey?: string }>(history: readonly R[]): R[] {
  const seen = new Set<string>();
  const latest: R[] = [];
  for (const record of history) {
    if (record.status !== 'applied') continue;
    const key = record.modelKey ?? verdictModelKey(record);
    if (seen.has(key)) continue;
    seen.add(key);
    latest.push(record);
  }
  return latest;
}
