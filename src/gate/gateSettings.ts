/**
 * The gate's settings (settings service key "gate", docs/gate.md "Triggers"): the evidence
 * policy, an optional separate gate model (docs/providers.md), and the rules for automatic runs —
 * off for a non-local provider until the user allows that host once, and a daily cap on the
 * requests automatic runs may send. Plain data and pure helpers only.
 */
import type { EvidencePolicy } from './types';

export interface GateProviderChoice {
  /** Empty: the review provider's base URL (which defaults to the chat's). */
  baseUrl: string;
  /** Empty: the review provider's model. */
  model: string;
}

export interface GateSettings {
  policy: EvidencePolicy;
  /** A separate gate model; absent means the review provider. */
  provider?: GateProviderChoice;
  /** Run after a skill or its cases change and when idle; manual Verify is always allowed. */
  automatic: boolean;
  /** Non-local hosts the user allowed automatic runs to talk to (asked once per host). */
  allowedHosts: string[];
  /** Requests automatic runs may send per day (manual runs are not capped). */
  dailyCap: number;
  /** Requests automatic runs sent on `day` (YYYY-MM-DD, local time). */
  usage: { day: string; requests: number };
  /** Replay noise per gate model (provider id + model): probes run and probes whose checks flipped. */
  noise: Record<string, { probes: number; flips: number }>;
  /** max_tokens of every replay. */
  maxTokens: number;
}

export const DEFAULT_GATE_SETTINGS: Readonly<GateSettings> = Object.freeze({
  policy: 'standard',
  automatic: true,
  allowedHosts: [],
  dailyCap: 300,
  usage: { day: '', requests: 0 },
  noise: {},
  maxTokens: 1024,
}) as Readonly<GateSettings>;

/** A manual run that would send more uncached requests than this asks first. */
export const CONFIRM_MANUAL_ABOVE_REQUESTS = 40;
/** Debounce after the last write to a skill's SKILL.md or evals/ before an automatic run. */
export const AUTO_RUN_DEBOUNCE_MS = 30_000;
/** Automatic runs wait for this long without user input and with no generation running. */
export const AUTO_RUN_IDLE_MS = 60_000;
